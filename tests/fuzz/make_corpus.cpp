// Writes the hostile half of the fuzz corpus (tests/fuzz/corpus/hostile-*): one small package per
// case the reader must refuse or bound, each with right checksums so that it reaches the check it is
// about. Run by hand when a case is added (README.md); the files are checked in.
//
//   build/tests/fuzz/fuzz_make_corpus tests/fuzz/corpus
#include "package_fixture.hpp"

#include "format/limits.hpp"
#include "format/record_io.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

namespace kiln::format::testing {
namespace {

void save(const std::filesystem::path& dir, const std::string& name, const Bytes& bytes) {
  std::ofstream(dir / ("hostile-" + name), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

WriteOptions uncompressed() {
  WriteOptions options;
  options.compress = false;
  return options;
}

// The sample package with image `i`'s record changed by `edit`, resealed.
template <class Edit>
Bytes with_image(std::size_t i, Edit edit) {
  Bytes file = write_ok(sample_contents(), uncompressed());
  auto image = get_record<ImageRecord>(file, SectionKind::images, i);
  edit(image, file);
  set_record(file, SectionKind::images, i, image);
  reseal(file);
  return file;
}

// One unit with an sm_90 cubin and a compute_90 PTX image given as bytes: checksums right, contents not.
Bytes with_images(const Bytes& cubin, const Bytes& ptx) {
  PackageContents c;
  c.targets = {"sm_90", "compute_90"};
  c.units = {{"k.cu", {{"sm_90", cubin, 0}, {"compute_90", ptx, 90}}}};
  c.kernels = {{"k", "k", "k.cu", k_kernel_extern_c, {}, {}}};
  return write_ok(c, uncompressed());
}

// A zstd frame of `size` zero bytes: a few kilobytes that claim (and decode to) `size`.
// STRINGS: NUL, then `length` 'a's and a NUL; NAMES: every suffix of that string, sorted: a table
// whose order check was quadratic.
Bytes suffix_names(std::uint32_t length) {
  Bytes strings(1);
  strings.resize(2 + length, std::byte{'a'});
  strings.back() = std::byte{0};
  const StrRef a{length, 1};
  Bytes names, units, kernels;
  for (std::uint32_t n = 1; n <= length; ++n) detail::append_record(names, NameRecord{StrRef{length + 1 - n, n}, 0});
  detail::append_record(units, UnitRecord{a, 0, 0});
  detail::append_record(kernels, KernelRecord{a, a, 0, 0, 0, 0});
  return assemble({{SectionKind::strings, strings}, {SectionKind::targets, {}}, {SectionKind::units, units},
                   {SectionKind::images, {}}, {SectionKind::kernels, kernels}, {SectionKind::params, {}},
                   {SectionKind::names, names}, {SectionKind::variables, {}}, {SectionKind::sources, {}},
                   {SectionKind::metadata, {}}, {SectionKind::blobs, {}}});
}

// A valid file whose units are link groups of the same two long sources with a long common prefix:
// checked record by record, UNIT_SOURCES' order cost units x length; ranked, it is linear.
Bytes shared_unit_sources(std::uint32_t units, std::uint32_t length) {
  PackageContents c;
  const std::string prefix(length, 'a');
  for (std::uint32_t u = 0; u < units; ++u) {
    PackageUnit unit{"g" + std::to_string(100000 + u), {}};
    unit.sources = {prefix + "1", prefix + "2"};
    c.units.push_back(std::move(unit));
  }
  return write_ok(c, uncompressed());
}

void write_corpus(const std::filesystem::path& dir) {
  const Bytes sample = write_ok(sample_contents());
  save(dir, "truncated", Bytes(sample.begin(), sample.begin() + static_cast<std::ptrdiff_t>(sample.size() / 2)));
  Bytes trailing = sample;
  trailing.resize(trailing.size() + 64, std::byte{0x5a});
  save(dir, "trailing-bytes", trailing);
  // Image 0 claims more than the package may decode; image 1 takes image 0's bytes.
  save(dir, "raw-size-over-limit", with_image(0, [](ImageRecord& r, const Bytes& f) { r.raw_size = max_image_size(f.size()) + 1; }));
  save(dir, "overlapping-images", with_image(1, [](ImageRecord& r, const Bytes& f) {
         r.offset = get_record<ImageRecord>(f, SectionKind::images, 0).offset;
       }));
  // A bomb that states its size honestly: PTX padded to 64 MiB, a few kilobytes compressed.
  PackageContents bomb;
  bomb.targets = {"compute_90"};
  bomb.units = {{"k.cu", {{"compute_90", ptx_of(".version 9.0\n.target sm_90\n" + std::string(64u << 20, '\n')), 90}}}};
  save(dir, "zstd-bomb-64mib", write_ok(bomb));
  save(dir, "zstd-claims-64mib", with_image(1, [](ImageRecord& r, const Bytes&) { r.raw_size = 64u << 20; }));
  // Images no driver can read, under right checksums.
  save(dir, "empty-cubin", with_images({}, ptx_of(".version 9.0\n.target sm_90\n")));
  save(dir, "text-as-cubin", with_images(bytes_of(std::string(100, 't')), ptx_of(".version 9.0\n.target sm_90\n")));
  Bytes far = cubin_of("k", 90);
  const std::uint64_t away = std::uint64_t{1} << 63;
  std::memcpy(far.data() + 40, &away, sizeof away);
  save(dir, "section-table-far-away", with_images(far, ptx_of(".version 9.0\n.target sm_90\n")));
  save(dir, "cubin-for-another-sm", with_images(cubin_of("k", 80), ptx_of(".version 9.0\n.target sm_90\n")));
  save(dir, "ptx-without-nul", with_images(cubin_of("k", 90), bytes_of(".version 9.0\n.target sm_90\n")));
  save(dir, "ptx-without-version", with_images(cubin_of("k", 90), ptx_of(".target sm_90\n")));
  // A name that leads to another kernel.
  Bytes moved = sample;
  auto name = get_record<NameRecord>(moved, SectionKind::names, 0);
  name.kernel = name.kernel == 0 ? 1 : 0;
  set_record(moved, SectionKind::names, 0, name);
  reseal(moved);
  save(dir, "name-of-another-kernel", moved);
  save(dir, "suffix-names", suffix_names(2000));
  PackageContents targets;
  for (std::uint32_t arch = 100; arch <= 100 + k_max_targets; ++arch) targets.targets.push_back("sm_" + std::to_string(arch));
  save(dir, "too-many-targets", write_ok(targets));
  // Format 1.2: a variant kernel stripped of its flag, so "f64/..." would reach the driver as a symbol.
  Bytes unflagged = write_ok(variant_contents(), uncompressed());
  auto kernel = get_record<KernelRecord>(unflagged, SectionKind::kernels, 4);
  kernel.flags &= ~std::uint32_t{k_kernel_variant};
  set_record(unflagged, SectionKind::kernels, 4, kernel);
  reseal(unflagged);
  save(dir, "variant-kernel-without-flag", unflagged);
  save(dir, "unit-sources-shared-prefix", shared_unit_sources(1000, 1000));
}

}  // namespace
}  // namespace kiln::format::testing

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_corpus DIR\n");
    return 2;
  }
  kiln::format::testing::write_corpus(argv[1]);
  return 0;
}
