// The libFuzzer target over everything a package's bytes reach before a driver does: open (header,
// table of contents, index checks), every lookup (kernel names, nearest names for an unknown one),
// and image selection, which checks and decodes the chosen image; then what `kiln verify` does with
// the format reader (every section's checksum, every image read and checked); then what a reader
// whose caller vouched for the checksums accepts (a direct record's package); then, with its
// checksums and index pages made right, what a reader that reads the index by pages checks at first
// use, against what one that reads it whole checks at open, and every lookup of the file read by
// pages against the same lookup read whole (paged_lookups.hpp). A crash, a sanitizer report or a
// broken promise (checked with abort) is a finding.
#include "format/image_check.hpp"
#include "format/index_pages.hpp"
#include "format/package_reader.hpp"
#include "options/carried_rules.hpp"
#include "paged_lookups.hpp"
#include "reseal.hpp"

#include <kiln/kiln.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

namespace {

// Architectures that reach every kind of choice: exact cubins, older-minor cubins, PTX JIT.
constexpr std::uint32_t k_architectures[] = {50, 75, 80, 86, 89, 90, 100, 120};
// Bounds the work per input: a package may list many kernels.
constexpr std::size_t k_max_kernels_tried = 64;

void require(bool promise) {
  if (!promise) std::abort();
}

void check_image(const kiln_image& image) {
  require(image.data != nullptr && image.size > 0);
  require(reinterpret_cast<std::uintptr_t>(image.data) % 8 == 0);
  const auto* bytes = static_cast<const unsigned char*>(image.data);
  if (image.kind == KILN_IMAGE_PTX) {
    require(bytes[image.size - 1] == '\0');
  } else {
    require(image.kind == KILN_IMAGE_CUBIN);
    require(image.size >= 4 && std::memcmp(bytes, "\x7f" "ELF", 4) == 0);
  }
  require(image.target != nullptr && image.kernel_name != nullptr && image.lowered_name != nullptr);
}

void select_everywhere(kiln_package* package, const char* kernel) {
  for (std::uint32_t arch : k_architectures) {
    kiln_image image{};
    image.struct_size = sizeof image;
    if (kiln_package_select_image_for_arch(package, kernel, arch, 0, &image) == KILN_STATUS_SUCCESS) {
      check_image(image);
    }
  }
}

// What `kiln verify` asks of the reader: each image of a package the reader opened decodes (the
// format's limits bound the work to 1024 times the input) and is then checked as the runtime checks
// it; each carried unit's values are held to what a build writes (options/carried_rules.hpp), as
// verify and the run-time compiler hold them, and a unit they pass writes no more than the bound.
void verify_everything(const std::uint8_t* data, std::size_t size) {
  kiln::format::PackageReader reader;
  if (!reader.open(std::span(reinterpret_cast<const std::byte*>(data), size), "fuzz input")) return;
  (void)reader.verify_all_sections();
  for (std::uint32_t c = 0; c < reader.carried_unit_count(); ++c) {
    const kiln::options::CarriedValues unit = kiln::options::carried_values(reader, c);
    if (kiln::options::carried_problems(unit, size).empty())
      require(unit.tree_bytes <= kiln::options::max_carried_tree_bytes(size));
  }
  for (std::uint32_t i = 0; i < reader.image_count(); ++i) {
    const kiln::Result<std::vector<std::byte>> image = reader.read_image(i);
    if (!image) continue;
    require(image->size() == reader.image(i).raw_size);
    (void)kiln::format::check_image(*image, reader.target(reader.image(i).target).target);
  }
}

// A reader opened as a direct record's package is (format::Checksums::verified_by_caller: the
// store's checksum stood behind the bytes): no content checksum stands between the input and the
// structural checks, so every byte of the input reaches them. Whatever it accepts, its accessors and
// image reads stay inside the buffer, and an image it reads has the size its record gives.
void read_as_verified(const std::uint8_t* data, std::size_t size) {
  kiln::format::PackageReader reader;
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  if (!reader.open(bytes, "fuzz input", kiln::format::Checksums::verified_by_caller)) return;
  const std::uint32_t kernels = reader.kernel_count();
  for (std::uint32_t k = 0; k < kernels && k < k_max_kernels_tried; ++k) {
    const kiln::format::KernelView kernel = reader.kernel(k);
    require(kernel.canonical_name.data() != nullptr && kernel.lowered_name.data() != nullptr);
    (void)reader.find_kernel(kernel.canonical_name);
    for (std::uint32_t p = 0; p < kernel.param_count; ++p) (void)kernel.param(p);
  }
  for (std::uint32_t i = 0; i < reader.image_count(); ++i) {
    const kiln::Result<std::vector<std::byte>> image = reader.read_image(i);
    if (image) require(image->size() == reader.image(i).raw_size);
  }
}

// A reader by pages over the resealed input (every page present: nothing to read, each still checked
// against its checksum): whatever each kernel's records hold, its checks and accessors stay inside
// the buffer; its whole check gives the answer a whole open gives; a package a whole open accepts
// has every kernel pass.
void read_by_pages(const std::uint8_t* data, std::size_t size) {
  std::vector<std::byte> file(reinterpret_cast<const std::byte*>(data), reinterpret_cast<const std::byte*>(data) + size);
  // Its INDEX_PAGES and checksums made right, so both readers get past them to the tables' rules.
  if (!kiln::format::testing::reseal(file)) return;
  kiln::format::PackageReader whole;
  const kiln::Status at_open = whole.open(file, "fuzz input");
  // With every checksum right, a caller's word on them changes no answer of the open.
  kiln::format::PackageReader verified;
  const kiln::Status verified_open = verified.open(file, "fuzz input", kiln::format::Checksums::verified_by_caller);
  require(verified_open.ok() == at_open.ok());
  if (!at_open) require(kiln::error_text(verified_open.error()) == kiln::error_text(at_open.error()));
  kiln::format::PackageReader paged;
  if (!paged.open_deferred(file, "fuzz input")) return;
  const kiln::format::IndexPageLoader pages(paged.index_pages(), file,
                                            [](std::uint64_t, std::uint64_t) { return kiln::Status(); });
  paged.use_pages(&pages);
  const std::uint32_t kernels = paged.kernel_count();
  for (std::uint32_t k = 0; k < kernels && k < k_max_kernels_tried; ++k) {
    if (!paged.check_kernel(k)) continue;
    const kiln::format::KernelView kernel = paged.kernel(k);
    require(kernel.canonical_name.data() != nullptr && kernel.lowered_name.data() != nullptr);
    (void)paged.find_kernel(kernel.canonical_name);
    const kiln::format::UnitView unit = paged.unit(kernel.unit);
    require(unit.source.data() != nullptr);
    for (std::uint32_t j = unit.first_image; j < unit.first_image + unit.image_count; ++j) {
      require(paged.target(paged.image(j).target).name.data() != nullptr);
      require(paged.stored_image(j).size() == paged.image(j).stored_size);
    }
    for (const std::uint32_t t : paged.kernel_targets(k)) require(t < paged.target_count());
    for (std::uint32_t p = 0; p < kernel.param_count; ++p) (void)kernel.param(p);
  }
  (void)paged.find_kernel("kiln_fuzz_no_such_kernel<int>");
  const kiln::Status all = paged.check_all();
  require(all.ok() == at_open.ok());
  if (!all) require(all.error().status == at_open.error().status && kiln::error_text(all.error()) == kiln::error_text(at_open.error()));
  if (all) {
    for (std::uint32_t k = 0; k < kernels && k < k_max_kernels_tried; ++k) require(paged.check_kernel(k).ok());
  }
  kiln::fuzz::compare_paged_lookups(file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  verify_everything(data, size);
  read_as_verified(data, size);
  read_by_pages(data, size);
  kiln_package* package = nullptr;
  if (kiln_package_open_memory(data, size, KILN_OPEN_COPY, "fuzz input", &package) != KILN_STATUS_SUCCESS) {
    require(package == nullptr);
    return 0;
  }
  require(package != nullptr);
  for (std::size_t t = 0; t < kiln_package_target_count(package); ++t) {
    require(kiln_package_target(package, t) != nullptr);
  }
  const std::size_t kernels = kiln_package_kernel_count(package);
  for (std::size_t k = 0; k < kernels && k < k_max_kernels_tried; ++k) {
    const char* name = kiln_package_kernel_name(package, k);
    require(name != nullptr && kiln_package_kernel_lowered_name(package, k) != nullptr);
    std::size_t found = 0;
    // Two kernels may share a canonical name only in a file the reader refuses, so the name finds k.
    require(kiln_package_find_kernel(package, name, &found) == KILN_STATUS_SUCCESS && found == k);
    select_everywhere(package, name);
  }
  require(kiln_package_kernel_name(package, kernels) == nullptr);
  std::size_t unused = 0;
  // An unknown name: the nearest-names search over the whole table.
  require(kiln_package_find_kernel(package, "kiln_fuzz_no_such_kernel<int>", &unused) ==
          KILN_STATUS_KERNEL_NOT_FOUND);
  kiln_package_destroy(package);
  return 0;
}
