#include "paged_lookups.hpp"

#include "format/index_pages.hpp"
#include "format/names.hpp"
#include "format/package_reader.hpp"

#include <kiln/kiln.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace kiln::fuzz {
namespace {

// Bounds the work per input: names looked up, and the architectures each one's image is chosen for
// (an exact cubin, an older minor's, PTX JIT).
constexpr std::size_t k_max_names = 96;
constexpr std::uint32_t k_architectures[] = {80, 86, 90, 100};

void require(bool promise) {
  if (!promise) std::abort();
}

// Every package file the fuzzer opens is read by pages, whatever the size of its index.
const bool k_by_pages = [] { return setenv("KILN_INDEX_PAGES", "1", 1) == 0; }();

// One file per process, rewritten for each input, removed at exit.
struct ScratchFile {
  std::string path =
      (std::filesystem::temp_directory_path() / ("kiln_fuzz_" + std::to_string(getpid()) + ".kiln")).string();
  ~ScratchFile() { std::remove(path.c_str()); }
};

const std::string& file_path() {
  static const ScratchFile file;
  return file.path;
}

struct Found {
  kiln_status status;
  std::size_t kernel = SIZE_MAX;
};

Found find(const kiln_package* package, const char* name) {
  Found found{};
  found.status = kiln_package_find_kernel(package, name, &found.kernel);
  return found;
}

// What a lookup may be asked: each kernel's canonical and stored lowered name and each NAMES
// record's name, as the bytes hold them (a reader by pages that checks nothing reads them), and a
// name no kernel has.
std::vector<std::string> names_of(const format::PackageReader& raw) {
  std::vector<std::string> names;
  for (std::uint32_t k = 0; k < raw.kernel_count() && names.size() < k_max_names / 2; ++k) {
    names.emplace_back(raw.kernel(k).canonical_name);
    names.emplace_back(raw.kernel(k).stored_name);
  }
  for (std::uint32_t i = 0; i < raw.name_count() && names.size() < k_max_names; ++i) names.emplace_back(raw.name(i).name);
  names.emplace_back("kiln_fuzz_no_such_kernel<int>");
  return names;
}

// Whether `name` is one of kernel `k`'s own names, normalized as NAMES holds them.
bool own_name(const format::PackageReader& raw, std::size_t k, const std::string& name) {
  if (k >= raw.kernel_count()) return false;
  const format::KernelView kernel = raw.kernel(static_cast<std::uint32_t>(k));
  const std::string key = format::normalize_name(name);
  return key == format::normalize_name(kernel.canonical_name) || key == format::normalize_name(kernel.stored_name);
}

// The names of the targets whose images hold kernel `k` as every KERNEL_TARGETS record of it says,
// wherever it lies (empty: every image of its unit does).
std::vector<std::string> targets_holding(const std::vector<std::byte>& file, const format::PackageReader& raw, std::size_t k) {
  std::vector<std::string> names;
  for (std::uint32_t i = 0; i < raw.section_count(); ++i) {
    const format::TocEntry entry = raw.section(i);
    if (entry.kind != static_cast<std::uint32_t>(format::SectionKind::kernel_targets)) continue;
    for (std::uint64_t at = entry.offset; at + sizeof(format::KernelTargetRecord) <= entry.offset + entry.size;
         at += sizeof(format::KernelTargetRecord)) {
      format::KernelTargetRecord r;
      std::memcpy(&r, file.data() + at, sizeof r);
      if (r.kernel == k) names.emplace_back(raw.target(r.target).name);
    }
    break;
  }
  return names;
}

// An image chosen for kernel `k` by pages is one that holds it: never one its KERNEL_TARGETS
// records leave out, none for a kernel in another file.
void check_images_hold(kiln_package* paged, const char* name, const std::vector<std::byte>& file,
                       const format::PackageReader& raw, std::size_t k) {
  const std::vector<std::string> holding = targets_holding(file, raw, k);
  for (const std::uint32_t arch : k_architectures) {
    kiln_image image{};
    image.struct_size = sizeof image;
    if (kiln_package_select_image_for_arch(paged, name, arch, 0, &image) != KILN_STATUS_SUCCESS) continue;
    require(!raw.kernel_in_other_file(static_cast<std::uint32_t>(k)));
    require(holding.empty() || std::find(holding.begin(), holding.end(), image.target) != holding.end());
  }
}

// The image both packages choose for `name` on each architecture: the same, or the same failure.
void compare_images(kiln_package* paged, kiln_package* whole, const char* name) {
  for (const std::uint32_t arch : k_architectures) {
    kiln_image by_pages{}, from_memory{};
    by_pages.struct_size = from_memory.struct_size = sizeof(kiln_image);
    const kiln_status status = kiln_package_select_image_for_arch(paged, name, arch, 0, &by_pages);
    require(status == kiln_package_select_image_for_arch(whole, name, arch, 0, &from_memory));
    if (status != KILN_STATUS_SUCCESS) continue;
    require(by_pages.size == from_memory.size && std::memcmp(by_pages.data, from_memory.data, by_pages.size) == 0);
    require(std::strcmp(by_pages.target, from_memory.target) == 0 && by_pages.kind == from_memory.kind);
  }
}

}  // namespace

void compare_paged_lookups(const std::vector<std::byte>& file) {
  require(k_by_pages);
  std::ofstream(file_path(), std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  kiln_package* paged = nullptr;
  if (kiln_package_open_file(file_path().c_str(), &paged) != KILN_STATUS_SUCCESS) return;
  kiln_package* whole = nullptr;
  const bool opened = kiln_package_open_memory(file.data(), file.size(), KILN_OPEN_COPY, "fuzz input", &whole) ==
                      KILN_STATUS_SUCCESS;
  format::PackageReader raw;   // the bytes as they are, for what the answers must be
  if (!raw.open_deferred(file, "fuzz input")) {
    kiln_package_destroy(whole);   // not readable by pages: the file was read whole too
    kiln_package_destroy(paged);
    return;
  }
  const format::IndexPageLoader pages(raw.index_pages(), file, [](std::uint64_t, std::uint64_t) { return Status(); });
  raw.use_pages(&pages);
  for (const std::string& stored : names_of(raw)) {
    const std::string name = stored.c_str();   // as a C caller can ask for it
    const Found by_pages = find(paged, name.c_str());
    if (opened) {
      const Found from_memory = find(whole, name.c_str());
      require(by_pages.status == from_memory.status);
      require(by_pages.status != KILN_STATUS_SUCCESS || by_pages.kernel == from_memory.kernel);
      compare_images(paged, whole, name.c_str());
      continue;
    }
    // A name is called missing only after the whole index is checked, which fails here.
    require(by_pages.status != KILN_STATUS_KERNEL_NOT_FOUND);
    if (by_pages.status != KILN_STATUS_SUCCESS) continue;
    require(own_name(raw, by_pages.kernel, name));
    require(raw.check_kernel(static_cast<std::uint32_t>(by_pages.kernel)).ok());
    check_images_hold(paged, name.c_str(), file, raw, by_pages.kernel);
  }
  const std::size_t kernels = kiln_package_kernel_count(paged);
  for (std::size_t k = 0; k < kernels && k < k_max_names; ++k) {
    const char* by_pages = kiln_package_kernel_name(paged, k);
    if (opened) {
      require(by_pages != nullptr && std::strcmp(by_pages, kiln_package_kernel_name(whole, k)) == 0);
    } else if (by_pages != nullptr) {
      require(raw.check_kernel(static_cast<std::uint32_t>(k)).ok());
    }
  }
  kiln_package_destroy(whole);
  kiln_package_destroy(paged);
}

}  // namespace kiln::fuzz
