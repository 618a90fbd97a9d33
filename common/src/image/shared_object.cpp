#include "image/shared_object.hpp"

#include "image/elf_file.hpp"
#include "platform/files.hpp"
#include "platform/library.hpp"
#include "platform/text.hpp"

#include <bit>
#include <cstdint>
#include <span>

namespace kiln::image {

namespace {

constexpr std::uint16_t k_et_rel = 1, k_et_exec = 2, k_et_dyn = 3, k_et_core = 4;

// This process's ELF machine (gABI e_machine values); 0 where Kiln has never run.
constexpr std::uint16_t k_this_machine =
#if defined(__x86_64__)
    62;    // EM_X86_64
#elif defined(__aarch64__)
    183;   // EM_AARCH64
#elif defined(__powerpc64__)
    21;    // EM_PPC64
#else
    0;
#endif

Status check_type(std::uint16_t type) {
  const std::string number = " (ELF type " + std::to_string(type) + ")";
  switch (type) {
  case k_et_dyn: return {};
  case k_et_exec: return Error("it is an executable" + number + ", not a shared library");
  case k_et_rel: return Error("it is a relocatable object" + number + ", not a shared library");
  case k_et_core: return Error("it is a core dump" + number + ", not a shared library");
  default: return Error("it is not a shared library" + number);
  }
}

}  // namespace

SharedObjectCheck check_shared_object(Bytes file, std::string_view entry_point) {
  SharedObjectCheck check;
  const auto byte_at = [&](std::size_t i) { return i < file.size() ? std::to_integer<std::uint8_t>(file[i]) : 0; };
  if (file.size() < 16 || byte_at(0) != 0x7f || byte_at(1) != 'E' || byte_at(2) != 'L' || byte_at(3) != 'F') {
    check.loadable = Error("it is not an ELF file");
    return check;
  }
  // ElfFile reads 64-bit little-endian files, which is what this process is on every system Kiln runs on.
  static_assert(sizeof(void*) == 8 && std::endian::native == std::endian::little);
  if (byte_at(4) != 2) {
    check.loadable = Error("it is built for another machine (a " + std::string(byte_at(4) == 1 ? "32" : "unknown") +
                           "-bit ELF file; this process is 64-bit)");
    return check;
  }
  if (byte_at(5) != 1) {
    check.loadable = Error("it is built for another machine (a big-endian ELF file)");
    return check;
  }
  Result<ElfFile> elf = ElfFile::parse(file);
  if (!elf) {
    check.loadable = Error("it is not a well-formed ELF file: " + elf.error().message);
    return check;
  }
  if (check.loadable = check_type(elf->header().type); !check.loadable) return check;
  if (elf->header().machine != k_this_machine) {
    check.loadable = Error("it is built for another machine (ELF machine " + std::to_string(elf->header().machine) +
                           "; this one is " + std::to_string(k_this_machine) + ")");
    return check;
  }
  Result<std::vector<ElfSymbol>> symbols = elf->symbols(k_sht_dynsym);
  if (!symbols) {
    check.loadable = Error("its dynamic symbol table cannot be read: " + symbols.error().message);
    return check;
  }
  for (const ElfSymbol& symbol : *symbols) {
    const bool exported = symbol.binding == k_stb_global || symbol.binding == k_stb_weak;
    if (symbol.name == entry_point && exported && symbol.section != 0) return check;
  }
  check.loadable = Error("it does not export " + std::string(entry_point));
  check.lacks_entry_point = true;
  return check;
}

std::string loading_refusal(const SharedObjectCheck& check) {
  return check.loadable ? std::string() : check.loadable.error().message;
}

Result<void*> open_library_exporting(const std::string& path, const char* entry_point) {
  platform::FileStatus status;
  if (!platform::status_of(platform::path_of_utf8(path), status)) return Error("not found");
  const auto check = [entry_point](std::span<const std::byte> bytes) {
    return loading_refusal(check_shared_object(bytes, entry_point));
  };
  platform::OpenedLibrary opened = platform::open_checked_library(path, check);
  if (!opened.handle) return Error(std::move(opened.error));
  return opened.handle;
}

}  // namespace kiln::image
