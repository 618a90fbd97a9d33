// Files whose checksums are all valid but whose structure is not: each edit targets one check of
// PackageReader::open (or of read_image) and expects the message that names the problem.
#include "package_fixture.hpp"

#include "format/checksum.hpp"
#include "format/record_io.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace kiln::format::testing {
namespace {

// Applies `edit` to the sample file, reseals it and returns what open() says.
Status open_edited(const std::function<void(Bytes&)>& edit) {
  Bytes file = write_ok(sample_contents());
  edit(file);
  reseal(file);
  PackageReader reader;
  Status e = reader.open(file, "app.kiln");
  if (!e) {
    EXPECT_EQ(reader.section_count(), 0u);  // a refused file leaves the reader empty
  }
  return e;
}

void expect_edit_corrupts(const std::function<void(Bytes&)>& edit, const std::string& message) {
  const Status e = open_edited(edit);
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_EQ(text_of(e), "app.kiln: " + message);
}

template <class Record, class Change>
std::function<void(Bytes&)> change_record(SectionKind kind, std::size_t i, Change change) {
  return [=](Bytes& file) {
    auto r = get_record<Record>(file, kind, i);
    change(r);
    set_record(file, kind, i, r);
  };
}

std::size_t toc_index(const Bytes& file, SectionKind kind) {
  const std::vector<TocEntry> toc = toc_of(file);
  for (std::size_t i = 0; i < toc.size(); ++i) {
    if (toc[i].kind == static_cast<std::uint32_t>(kind)) return i;
  }
  return 0;
}

std::function<void(Bytes&)> change_section(SectionKind kind,
                                           std::function<void(TocEntry&)> change) {
  return [=](Bytes& file) {
    const std::size_t i = toc_index(file, kind);
    TocEntry e = toc_of(file)[i];
    change(e);
    set_toc_entry(file, i, e);
  };
}

TEST(PackageIndex, ResealedSampleStillOpens) {
  EXPECT_TRUE(open_edited([](Bytes&) {}));  // the edits below are what the reader refuses
}

TEST(PackageIndex, HeaderAndToc) {
  expect_edit_corrupts(
      [](Bytes& f) {
        auto h = header_of(f);
        h.header_size = 48;
        set_header(f, h);
      },
      "header size 48 or file size " +
          std::to_string(header_of(write_ok(sample_contents())).file_size) + " is impossible");
  expect_edit_corrupts(
      [](Bytes& f) {
        auto h = header_of(f);
        h.toc_offset = 8;
        set_header(f, h);
      },
      "the TOC lies outside the file");
  expect_edit_corrupts(
      [](Bytes& f) {
        auto h = header_of(f);
        h.section_count += 1;
        set_header(f, h);
      },
      "the TOC lies outside the file");
  expect_edit_corrupts(
      [](Bytes& f) {
        auto h = header_of(f);
        f.insert(f.end(), 16, std::byte{0});  // the TOC no longer ends the file
        h.file_size = f.size();
        set_header(f, h);
      },
      "the TOC does not end the file");
}

TEST(PackageIndex, SectionPlacement) {
  expect_edit_corrupts(
      change_section(SectionKind::units, [](TocEntry& e) { e.offset += 8; }),
      "UNITS section at offset " +
          std::to_string(section_of(write_ok(sample_contents()), SectionKind::units).offset + 8) +
          " is not 16-byte aligned");
  expect_edit_corrupts(change_section(SectionKind::strings, [](TocEntry& e) { e.offset = 0; }),
                 "STRINGS section lies outside the space between header and TOC");
  expect_edit_corrupts(change_section(SectionKind::blobs, [](TocEntry& e) { e.size += 1000000; }),
                 "BLOBS section lies outside the space between header and TOC");
  const Bytes sample = write_ok(sample_contents());
  expect_edit_corrupts(change_section(SectionKind::units,
                                [&](TocEntry& e) {
                                  e.offset = section_of(sample, SectionKind::targets).offset;
                                }),
                 "sections overlap at offset " +
                     std::to_string(section_of(sample, SectionKind::targets).offset));
  // The last PARAMS byte is a zero high byte of a size, so after shrinking, the padding check
  // passes and the record size check is reached.
  expect_edit_corrupts(change_section(SectionKind::params, [](TocEntry& e) { e.size -= 1; }),
                 "PARAMS section size " +
                     std::to_string(section_of(sample, SectionKind::params).size - 1) +
                     " is not a multiple of 8");
  // The first padding byte of the file: after the first section whose size is not a multiple of 16.
  std::uint64_t padding = 0;
  for (const TocEntry& e : toc_of(sample)) {
    if (e.size % 16 != 0 && padding == 0) padding = e.offset + e.size;
  }
  ASSERT_NE(padding, 0u);
  expect_edit_corrupts([&](Bytes& f) { f[padding] = std::byte{7}; },
                 "non-zero padding byte at offset " + std::to_string(padding));
}

TEST(PackageIndex, RequiredAndDuplicateSections) {
  expect_edit_corrupts(change_section(SectionKind::kernels, [](TocEntry& e) { e.kind = 200; }),
                 "no KERNELS section");
  expect_edit_corrupts(change_section(SectionKind::blobs, [](TocEntry& e) { e.kind = 201; }),
                 "no BLOBS section");
  // Every section of 2.0 is required, even empty (the sample's KERNEL_TARGETS and UNIT_SOURCES are),
  // but for the carried sources' four.
  for (const SectionKind kind : {SectionKind::kernel_targets, SectionKind::unit_sources, SectionKind::name_index,
                                 SectionKind::index_pages}) {
    expect_edit_corrupts(change_section(kind, [](TocEntry& e) { e.kind = 200; }),
                         "no " + detail::section_name(static_cast<std::uint32_t>(kind)) + " section");
  }
  expect_edit_corrupts(change_section(SectionKind::metadata, [](TocEntry& e) { e.kind = 12; }),
                 "two KERNEL_TARGETS sections");
  expect_edit_corrupts(change_section(SectionKind::metadata, [](TocEntry& e) { e.kind = 13; }),
                 "two UNIT_SOURCES sections");
  expect_edit_corrupts(change_section(SectionKind::metadata, [](TocEntry& e) { e.kind = 9; }),
                 "two SOURCES sections");
}

TEST(PackageIndex, Strings) {
  expect_edit_corrupts([](Bytes& f) { f[section_of(f, SectionKind::strings).offset] = std::byte{'x'}; },
                 "STRINGS section does not start with a NUL byte");
  const std::uint32_t strings_size = static_cast<std::uint32_t>(
      section_of(write_ok(sample_contents()), SectionKind::strings).size);
  expect_edit_corrupts(
      change_record<KernelRecord>(SectionKind::kernels, 1,
                                  [&](KernelRecord& r) { r.lowered_name.offset = strings_size; }),
      "KERNELS record 1: lowered_name (offset " + std::to_string(strings_size) +
          ", length 19) is not a NUL-terminated string inside STRINGS");
  const std::uint32_t source =
      get_record<UnitRecord>(write_ok(sample_contents()), SectionKind::units, 0).source.offset;
  expect_edit_corrupts(
      change_record<UnitRecord>(SectionKind::units, 0, [](UnitRecord& r) { r.source.length += 1; }),
      "UNITS record 0: source (offset " + std::to_string(source) +
          ", length 17) is not a NUL-terminated string inside STRINGS");
  expect_edit_corrupts(
      change_record<MetadataRecord>(SectionKind::metadata, 2,
                                    [](MetadataRecord& r) { r.value.length = 0xffffffff; }),
      "METADATA record 2: value (offset " +
          std::to_string(
              get_record<MetadataRecord>(write_ok(sample_contents()), SectionKind::metadata, 2)
                  .value.offset) +
          ", length 4294967295) is not a NUL-terminated string inside STRINGS");
  // An embedded NUL: the C API would see a shorter name.
  expect_edit_corrupts(
      [](Bytes& f) {
        const auto ref = get_record<UnitRecord>(f, SectionKind::units, 0).source;
        f[section_of(f, SectionKind::strings).offset + ref.offset + 3] = std::byte{0};
      },
      "UNITS record 0: source (offset " + std::to_string(source) +
          ", length 16) is not a NUL-terminated string inside STRINGS");
}

TEST(PackageIndex, IndicesOutOfRange) {
  expect_edit_corrupts(
      change_record<KernelRecord>(SectionKind::kernels, 2, [](KernelRecord& r) { r.unit = 2; }),
      "KERNELS record 2: unit 2 is out of range (2 UNITS records)");
  expect_edit_corrupts(change_record<KernelRecord>(SectionKind::kernels, 3,
                                             [](KernelRecord& r) { r.param_count += 1; }),
                 "KERNELS record 3: parameters [6, +5) lie outside PARAMS (10 records)");
  expect_edit_corrupts(change_record<KernelRecord>(SectionKind::kernels, 3,
                                             [](KernelRecord& r) { r.first_param = 0xfffffffe; }),
                 "KERNELS record 3: parameters [4294967294, +4) lie outside PARAMS (10 records)");
  expect_edit_corrupts(
      change_record<NameRecord>(SectionKind::names, 5, [](NameRecord& r) { r.kernel = 4; }),
      "NAMES record 5: kernel 4 is out of range (4 KERNELS records)");
  expect_edit_corrupts(change_record<VariableRecord>(SectionKind::variables, 0,
                                               [](VariableRecord& r) { r.unit = 99; }),
                 "VARIABLES record 0: unit 99 is out of range (2 UNITS records)");
  expect_edit_corrupts(
      change_record<ImageRecord>(SectionKind::images, 4, [](ImageRecord& r) { r.target = 3; }),
      "IMAGES record 4: target 3 is out of range (3 TARGETS records)");
  expect_edit_corrupts(
      change_record<ImageRecord>(SectionKind::images, 0, [](ImageRecord& r) { r.unit = 5; }),
      "IMAGES record 0: unit 5 is out of range (2 UNITS records)");
}

TEST(PackageIndex, ImagesInsideBlobsAndGroupedByUnit) {
  const Bytes sample = write_ok(sample_contents());
  const std::uint64_t blobs = section_of(sample, SectionKind::blobs).size;
  expect_edit_corrupts(
      change_record<ImageRecord>(SectionKind::images, 1, [](ImageRecord& r) { r.offset += 8; }),
      "IMAGES record 1: offset " +
          std::to_string(get_record<ImageRecord>(sample, SectionKind::images, 1).offset + 8) +
          " is not a multiple of 16");
  expect_edit_corrupts(
      change_record<ImageRecord>(SectionKind::images, 4,
                                 [](ImageRecord& r) { r.stored_size += 1000; }),
      "IMAGES record 4: bytes [" +
          std::to_string(get_record<ImageRecord>(sample, SectionKind::images, 4).offset) + ", +" +
          std::to_string(get_record<ImageRecord>(sample, SectionKind::images, 4).stored_size +
                         1000) +
          ") lie outside BLOBS (" + std::to_string(blobs) + " bytes)");
  expect_edit_corrupts(
      change_record<ImageRecord>(SectionKind::images, 0,
                                 [](ImageRecord& r) { r.offset = 0xfffffffffffffff0; }),
      "IMAGES record 0: bytes [18446744073709551600, +" +
          std::to_string(get_record<ImageRecord>(sample, SectionKind::images, 0).stored_size) +
          ") lie outside BLOBS (" + std::to_string(blobs) + " bytes)");
  expect_edit_corrupts(
      change_record<ImageRecord>(SectionKind::images, 3, [](ImageRecord& r) { r.unit = 0; }),
      "IMAGES record 3: unit 0 is not the unit whose range holds it (1)");
  expect_edit_corrupts(
      change_record<UnitRecord>(SectionKind::units, 1, [](UnitRecord& r) { r.image_count = 1; }),
      "IMAGES record 4: belongs to no unit");
  expect_edit_corrupts(
      change_record<UnitRecord>(SectionKind::units, 1, [](UnitRecord& r) { r.first_image = 2; }),
      "UNITS record 1: images [2, +2) do not follow the previous unit's (expected 3, 5 IMAGES "
      "records)");
  expect_edit_corrupts(
      change_record<ImageRecord>(SectionKind::images, 1, [](ImageRecord& r) { r.target = 0; }),
      "IMAGES record 1: out of order or a duplicate (a unit's images are sorted by target)");
  expect_edit_corrupts(change_record<ImageRecord>(SectionKind::images, 0,
                                            [](ImageRecord& r) { r.ptx_version = 80; }),
                 "IMAGES record 0: a cubin with a PTX version (80)");
}

TEST(PackageIndex, TablesSortedAndUnique) {
  const auto swap_records = [](SectionKind kind, std::size_t size, std::size_t i) {
    return [=](Bytes& f) {
      std::byte* first = f.data() + section_of(f, kind).offset + i * size;
      std::swap_ranges(first, first + size, first + size);
    };
  };
  expect_edit_corrupts(
      swap_records(SectionKind::kernels, sizeof(KernelRecord), 1),
      "KERNELS record 2: out of order or a duplicate (the table is sorted by lowered name)");
  expect_edit_corrupts(swap_records(SectionKind::names, sizeof(NameRecord), 6),
                 "NAMES record 7: out of order or a duplicate (the table is sorted by name)");
  expect_edit_corrupts(
      [](Bytes& f) {
        auto second = get_record<NameRecord>(f, SectionKind::names, 1);
        second.name = get_record<NameRecord>(f, SectionKind::names, 0).name;  // one name twice
        set_record(f, SectionKind::names, 1, second);
      },
      "NAMES record 1: out of order or a duplicate (the table is sorted by name)");
  expect_edit_corrupts(swap_records(SectionKind::variables, sizeof(VariableRecord), 0),
                 "VARIABLES record 1: out of order or a duplicate (the table is sorted by name)");
  expect_edit_corrupts(swap_records(SectionKind::sources, sizeof(SourceRecord), 3),
                 "SOURCES record 4: out of order or a duplicate (the table is sorted by path)");
  expect_edit_corrupts(swap_records(SectionKind::metadata, sizeof(MetadataRecord), 0),
                 "METADATA record 1: out of order or a duplicate (the table is sorted by key)");
  expect_edit_corrupts(swap_records(SectionKind::units, sizeof(UnitRecord), 0),
                 "UNITS record 0: images [3, +2) do not follow the previous unit's (expected 0, 5 "
                 "IMAGES records)");
  expect_edit_corrupts(
      [](Bytes& f) {
        auto second = get_record<UnitRecord>(f, SectionKind::units, 1);
        auto first = get_record<UnitRecord>(f, SectionKind::units, 0);
        first.source = second.source;  // same source twice
        set_record(f, SectionKind::units, 0, first);
      },
      "UNITS record 1: out of order or a duplicate (the table is sorted by source path)");
  expect_edit_corrupts(
      swap_records(SectionKind::targets, sizeof(TargetRecord), 0),
      "TARGETS record 1: out of order or a duplicate (the table is sorted by kind, arch, variant)");
}

TEST(PackageIndex, EnumsAndTargetFields) {
  expect_edit_corrupts(
      change_record<TargetRecord>(SectionKind::targets, 1, [](TargetRecord& r) { r.arch = 89; }),
      "TARGETS record 1: name 'sm_90a' does not match its fields");
  expect_edit_corrupts(
      change_record<TargetRecord>(SectionKind::targets, 0, [](TargetRecord& r) { r.variant = 7; }),
      "TARGETS record 0: name 'sm_80' does not match its fields");
  expect_edit_corrupts(change_record<VariableRecord>(SectionKind::variables, 2,
                                               [](VariableRecord& r) { r.kind = 3; }),
                 "VARIABLES record 2: unknown variable kind 3");
  expect_edit_corrupts(
      change_record<SourceRecord>(SectionKind::sources, 1, [](SourceRecord& r) { r.role = 9; }),
      "SOURCES record 1: unknown source role 9");
}

// Reserved fields and unknown flag bits are for newer minors: a reader ignores them.
TEST(PackageIndex, ReservedFieldsAndUnknownFlagsAreIgnored) {
  EXPECT_TRUE(open_edited([](Bytes& f) {
    auto h = header_of(f);
    h.flags = 0x10;
    h.reserved = 42;
    set_header(f, h);
    change_record<TargetRecord>(SectionKind::targets, 0,
                                [](TargetRecord& r) { r.reserved = 1; })(f);
    change_record<SourceRecord>(SectionKind::sources, 0,
                                [](SourceRecord& r) { r.reserved = 1; })(f);
    change_record<KernelRecord>(SectionKind::kernels, 0,
                                [](KernelRecord& r) { r.flags |= 1u << 20; })(f);
    change_section(SectionKind::units, [](TocEntry& e) { e.flags |= 1u << 7; })(f);
  }));
}

// read_image checks what open() leaves alone: the encoding, the sizes and the decoded bytes.
TEST(PackageIndex, ImageProblemsSurfaceAtLoad) {
  const auto load = [](std::uint32_t image, const std::function<void(ImageRecord&)>& change) {
    Bytes file = write_ok(sample_contents());
    auto r = get_record<ImageRecord>(file, SectionKind::images, image);
    change(r);
    set_record(file, SectionKind::images, image, r);
    reseal(file);
    PackageReader reader;
    EXPECT_TRUE(reader.open(file, "app.kiln"));
    const Result<std::vector<std::byte>> e = reader.read_image(image);
    EXPECT_EQ(status_of(e), KILN_STATUS_IMAGE_CORRUPT);
    return text_of(e);
  };
  // Image 1 is saxpy.cu's sm_90a cubin (zstd), image 0 its sm_80 cubin (raw).
  EXPECT_EQ(load(1, [](ImageRecord& r) { r.checksum ^= 1; }),
            "app.kiln: image kernels/saxpy.cu [sm_90a] fails its checksum");
  EXPECT_EQ(load(0, [](ImageRecord& r) { r.checksum ^= 1; }),
            "app.kiln: image kernels/saxpy.cu [sm_80] fails its checksum");
  EXPECT_EQ(load(1, [](ImageRecord& r) { r.encoding = 7; }),
            "app.kiln: image kernels/saxpy.cu [sm_90a] has an unknown encoding 7");
  EXPECT_EQ(load(0, [](ImageRecord& r) { r.raw_size += 1; }),
            "app.kiln: image kernels/saxpy.cu [sm_80] is stored raw but its raw size 1001 differs "
            "from its "
            "stored size 1000");
  EXPECT_EQ(load(1, [](ImageRecord& r) { r.raw_size = 4001; }),
            "app.kiln: image kernels/saxpy.cu [sm_90a] does not decode: its zstd frame holds 4000 "
            "bytes, not 4001");
  EXPECT_EQ(load(0, [](ImageRecord& r) { r.encoding = 1; }),
            "app.kiln: image kernels/saxpy.cu [sm_80] does not decode: not a zstd frame");
  // A raw image declared as zstd of a different size: still refused before any large allocation.
  EXPECT_EQ(load(4, [](ImageRecord& r) { r.stored_size -= 1; }),
            "app.kiln: image kernels/scale.cu [compute_80] does not decode: its zstd frame is "
            "incomplete");

  Bytes file = write_ok(sample_contents());
  const PackageReader reader = open_ok(file);
  const Result<std::vector<std::byte>> e = reader.read_image(5);
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_EQ(text_of(e), "app.kiln: there is no image 5 (the package has 5)");
}

}  // namespace
}  // namespace kiln::format::testing
