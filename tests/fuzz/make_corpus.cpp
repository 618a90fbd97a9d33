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

// Four kernels kern<1>..kern<4> ("_Z4kernILi<i>EEvv", alias "kern_alias<i>") of one unit with sm_80
// and sm_90 cubins and compute_90 PTX: kern<2> and kern<4> only in the sm_90 cubin, kern<3> in
// another file of a split package. A file whose tables' rules decide which kernel a name finds, or which image holds
// it; every edit below is resealed (index pages too), so a reader by pages reaches those rules.
PackageContents kern_contents() {
  PackageContents c;
  c.targets = {"sm_80", "sm_90", "compute_90"};
  c.units = {{"k.cu", {{"sm_80", cubin_of("k80", 80), 0}, {"sm_90", cubin_of("k90", 90), 0},
                       {"compute_90", ptx_of(".version 9.0\n.target sm_90\n"), 90}}}};
  for (int i = 1; i <= 4; ++i) {
    PackageKernel k{"_Z4kernILi" + std::to_string(i) + "EEvv", "kern<" + std::to_string(i) + ">", "k.cu",
                    k_kernel_template, {}, {"kern_alias<" + std::to_string(i) + ">"}};
    if (i == 3) k.flags |= k_kernel_in_other_file;
    if (i % 2 == 0) k.targets = {"sm_90"};
    c.kernels.push_back(std::move(k));
  }
  c.metadata = {{"nvrtc.version", "13.0"}, {"split.files", "cc12"}, {"split.id", "0123456789abcdef"}};
  return c;
}

// kern_contents() written, with record `i` of section `kind` changed by `edit` and resealed.
template <class Record, class Edit>
Bytes kern_with(SectionKind kind, std::size_t i, Edit edit) {
  Bytes file = write_ok(kern_contents(), uncompressed());
  auto r = get_record<Record>(file, kind, i);
  edit(r, file);
  set_record(file, kind, i, r);
  reseal(file);
  return file;
}

// The indices of a name's NAMES record and of a kernel, in a written kern_contents().
std::uint32_t name_index_of(const Bytes& file, const std::string& name) {
  const PackageReader reader = open_ok(file);
  for (std::uint32_t i = 0; i < reader.name_count(); ++i) {
    if (reader.name(i).name == name) return i;
  }
  return 0;
}

std::uint32_t kernel_index_of(const Bytes& file, const std::string& name) {
  return open_ok(file).find_kernel(name).value_or(0);
}

// The hostile inputs of a reader by pages (issue 30): each opened whole is refused; read by pages,
// a lookup must fail or give the kernel whose own name it asked for.
void write_paged_corpus(const std::filesystem::path& dir) {
  const Bytes kern = write_ok(kern_contents(), uncompressed());
  const std::uint32_t kern2 = kernel_index_of(kern, "kern<2>");
  // The issue's: kern<1>'s name leads to kern<2>, whose own names still find it.
  save(dir, "paged-kern1-finds-kern2", kern_with<NameRecord>(SectionKind::names, name_index_of(kern, "kern<1>"),
                                                             [&](NameRecord& r, const Bytes&) { r.kernel = kern2; }));
  // kern<1> given kern<2>'s symbol: KERNELS out of order, and one name finds two kernels.
  save(dir, "paged-symbol-of-another-kernel",
       kern_with<KernelRecord>(SectionKind::kernels, kernel_index_of(kern, "kern<1>"), [&](KernelRecord& r, const Bytes& f) {
         r.lowered_name = get_record<KernelRecord>(f, SectionKind::kernels, kern2).lowered_name;
       }));
  // kern<2>'s alias renamed kern<1>, and NAME_INDEX's slot of kern<1> led to it: NAMES holds a name twice.
  Bytes twice = kern_with<NameRecord>(SectionKind::names, name_index_of(kern, "kern_alias<2>"), [&](NameRecord& r, const Bytes& f) {
    r.name = get_record<NameRecord>(f, SectionKind::names, name_index_of(kern, "kern<1>")).name;
  });
  const TocEntry slots = section_of(twice, SectionKind::name_index);
  for (std::uint64_t at = slots.offset; at < slots.offset + slots.size; at += sizeof(NameIndexSlot)) {
    NameIndexSlot slot;
    std::memcpy(&slot, twice.data() + at, sizeof slot);
    if (slot != name_index_of(kern, "kern<1>") + 1) continue;
    slot = name_index_of(kern, "kern_alias<2>") + 1;
    std::memcpy(twice.data() + at, &slot, sizeof slot);
  }
  reseal(twice);
  save(dir, "paged-name-twice-through-index", twice);
  // KERNEL_TARGETS (kern<2>'s record, then kern<4>'s) out of order, where the search for a kernel's
  // records does not look: kern<4>'s made kern<1>'s, or the two made kern<4>'s and then kern<3>'s.
  const std::uint32_t kern1 = kernel_index_of(kern, "kern<1>"), kern3 = kernel_index_of(kern, "kern<3>");
  save(dir, "paged-kernel-targets-out-of-order",
       kern_with<KernelTargetRecord>(SectionKind::kernel_targets, 1, [&](KernelTargetRecord& r, const Bytes&) { r.kernel = kern1; }));
  Bytes elsewhere = kern;
  const auto kern4_record = get_record<KernelTargetRecord>(elsewhere, SectionKind::kernel_targets, 1);
  set_record(elsewhere, SectionKind::kernel_targets, 0, kern4_record);
  set_record(elsewhere, SectionKind::kernel_targets, 1, KernelTargetRecord{kern3, kern4_record.target});
  reseal(elsewhere);
  save(dir, "paged-kernel-elsewhere-with-a-target", elsewhere);
  // TARGETS' sm_90 made a second sm_80; METADATA's first two records swapped.
  save(dir, "paged-target-twice", kern_with<TargetRecord>(SectionKind::targets, 1, [](TargetRecord& r, const Bytes& f) {
         r = get_record<TargetRecord>(f, SectionKind::targets, 0);
       }));
  Bytes metadata = kern;
  const auto first = get_record<MetadataRecord>(metadata, SectionKind::metadata, 0);
  set_record(metadata, SectionKind::metadata, 0, get_record<MetadataRecord>(metadata, SectionKind::metadata, 1));
  set_record(metadata, SectionKind::metadata, 1, first);
  reseal(metadata);
  save(dir, "paged-metadata-out-of-order", metadata);
}

// Carried sources no build of this Kiln writes (issue 30): options that make NVRTC or nvJitLink write
// or read files of their choosing (an include directory outside the tree among them), and one text that many header
// paths name, so that laying the tree out would write far more than the package holds.
void write_carried_corpus(const std::filesystem::path& dir) {
  PackageContents c = sample_contents();
  PackageCarriedUnit unit;
  unit.unit_source = "kernels/scale.cu";
  unit.source = {"kernels/scale.cu", "template <typename T> __global__ void scale(T* x, T f, int n) {}\n"};
  unit.kernel_templates = {"scale"};
  unit.nvrtc_version = "13.0";
  PackageContents options = c;
  unit.options = {"--create-pch=victim", "--time=time.csv", "-fdevice-time-trace=trace.json",
                  "--pre-include=/etc/hostname", "-I/etc"};
  unit.link_options = {"-time=link.csv"};
  options.carried = {unit};
  save(dir, "carried-options-that-write-files", write_ok(options, uncompressed()));
  PackageContents many = c;
  unit.options = {"--std=c++17"};
  unit.include_dirs = {"."};
  unit.link_options = {};
  const std::string header(64u << 10, 'x');
  for (int i = 0; i < 512; ++i) unit.headers.push_back({"h" + std::to_string(i) + ".cuh", header});
  many.carried = {unit};
  save(dir, "carried-one-text-under-many-paths", write_ok(many));
}

// A kernel flagged as in another file of a split, in a package that is not split.
void write_split_corpus(const std::filesystem::path& dir) {
  PackageContents c = sample_contents();
  c.kernels[1].flags |= k_kernel_in_other_file;
  save(dir, "kernel-in-a-companion-of-no-split", write_ok(c, uncompressed()));
}

void write_corpus(const std::filesystem::path& dir) {
  write_paged_corpus(dir);
  write_carried_corpus(dir);
  write_split_corpus(dir);
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
  // A variant kernel stripped of its flag, so "f64/..." would reach the driver as a symbol.
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
