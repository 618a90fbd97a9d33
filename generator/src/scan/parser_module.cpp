#include "scan/parser_module.hpp"

#include "scan/scanner.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <mutex>
#include <vector>

namespace kiln::scan::detail {

namespace fs = std::filesystem;

namespace {

constexpr const char* k_module_file = "libkiln_scan_parser.so";

}  // namespace

// Where the module is: beside the running kiln as installed (and as the build tree lays it out),
// else in the build tree that made this kiln (test programs run from elsewhere).
fs::path parser_module_path() {
  std::error_code ec;
  const fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = (exe.parent_path() / KILN_SCAN_PARSER_FROM_BINDIR / k_module_file).lexically_normal();
    if (fs::exists(beside, ec)) return beside;
  }
  return KILN_SCAN_PARSER_BUILD_PATH;
}

Result<const ParserModule*> parser_module() {
  static const ParserModule* module = nullptr;
  static std::string load_error;
  static std::once_flag once;
  std::call_once(once, [] {
    const fs::path path = parser_module_path();
    // Kept for the life of the process: its code is what every later parse runs.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      load_error = "kiln cannot load its clang parser " + path.string() + ": " + (why ? why : "unknown error") +
                   " (a kiln installed without it, or a damaged install)";
      return;
    }
    using Entry = const ParserModule* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(handle, "kiln_scan_parser_module"));
    module = entry ? entry() : nullptr;
    if (module == nullptr || module->run_parse == nullptr || module->make_pch == nullptr)
      load_error = "kiln's clang parser " + path.string() + " is not one this kiln can use (no kiln_scan_parser_module)";
  });
  if (module == nullptr) return fail(KILN_STATUS_INTERNAL_ERROR, load_error);
  return module;
}

std::string file_build_id(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum > 64)
    return {};
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  if (!in.read(reinterpret_cast<char*>(segments.data()), static_cast<std::streamsize>(segments.size() * sizeof(Elf64_Phdr))))
    return {};
  for (const Elf64_Phdr& segment : segments) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > 4096) continue;
    std::vector<unsigned char> notes(segment.p_filesz);
    in.seekg(static_cast<std::streamoff>(segment.p_offset));
    if (!in.read(reinterpret_cast<char*>(notes.data()), static_cast<std::streamsize>(notes.size()))) return {};
    std::size_t at = 0;
    while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
      Elf64_Nhdr note{};
      std::memcpy(&note, notes.data() + at, sizeof note);
      const std::size_t name = at + sizeof note;
      const std::size_t desc = name + ((note.n_namesz + 3) & ~3u);
      if (desc + note.n_descsz > notes.size()) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(notes.data() + name, "GNU", 4) == 0) {
        static constexpr char k_hex[] = "0123456789abcdef";
        std::string id;
        for (std::size_t k = 0; k < note.n_descsz; ++k) {
          id.push_back(k_hex[notes[desc + k] >> 4]);
          id.push_back(k_hex[notes[desc + k] & 15]);
        }
        return id;
      }
      at = desc + ((note.n_descsz + 3) & ~3u);
    }
  }
  return {};
}

const std::string& parser_module_identity() {
  static const std::string identity = [] {
    const fs::path path = parser_module_path();
    if (std::string id = file_build_id(path); !id.empty()) return "build-id " + id;
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return std::string("none");
    return std::to_string(info.st_size) + "@" + std::to_string(info.st_mtim.tv_sec) + "." +
           std::to_string(info.st_mtim.tv_nsec);
  }();
  return identity;
}

// What the clang-free scanner calls (parse.hpp): the module's, once loaded.
ParseOutput run_parse(const ParseJob& job) {
  const Result<const ParserModule*> module = parser_module();
  if (module) return (*module)->run_parse(job);
  ParseOutput output;
  output.failed = true;
  output.errors.push_back({{Diagnostic::Severity::error, {}, module.error().message}, 0});
  return output;
}

Status make_pch(const ParseJob& job, const fs::path& output, std::map<std::string, std::string>& spellings) {
  const Result<const ParserModule*> module = parser_module();
  if (!module) return module.error();
  return (*module)->make_pch(job, output, spellings);
}

}  // namespace kiln::scan::detail

namespace kiln::scan {

void load_parser() {
  (void)detail::parser_module();   // an error: each parse reports it
}

}  // namespace kiln::scan
