// Hostile packages that cost a reader time or memory, and the checks that bound the work: a NAMES
// table of suffixes of one long string (quadratic to check before), kernels their own names do not
// find, overlapping images, a zstd frame that claims gigabytes. Each must be refused quickly.
#include "package_fixture.hpp"

#include "format/image_check.hpp"
#include "format/limits.hpp"
#include "format/record_io.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace kiln::format::testing {
namespace {

template <class Record>
Bytes records(const std::vector<Record>& list) {
  Bytes out;
  for (const Record& r : list) detail::append_record(out, r);
  return out;
}

// STRINGS: NUL, then `length` 'a's and a NUL. One unit and one kernel named "a" (the last 'a');
// NAMES: the kernel's name, then (if `suffixes`) every longer suffix of the long string, sorted.
Bytes suffix_package(std::uint32_t length, bool suffixes) {
  Bytes strings(1);
  strings.resize(2 + length, std::byte{'a'});
  strings.back() = std::byte{0};
  const StrRef a{length, 1};
  std::vector<NameRecord> names{{a, 0}};
  for (std::uint32_t n = 2; suffixes && n <= length; ++n) names.push_back({StrRef{length + 1 - n, n}, 0});
  return assemble({{SectionKind::strings, strings},
                   {SectionKind::targets, {}},
                   {SectionKind::units, records(std::vector<UnitRecord>{{a, 0, 0}})},
                   {SectionKind::images, {}},
                   {SectionKind::kernels, records(std::vector<KernelRecord>{{a, a, 0, 0, 0, 0}})},
                   {SectionKind::params, {}},
                   {SectionKind::names, records(names)},
                   {SectionKind::variables, {}},
                   {SectionKind::sources, {}},
                   {SectionKind::metadata, {}},
                   {SectionKind::blobs, {}}});
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(PackageLimits, SuffixesOfOneStringAreRefusedQuickly) {
  open_ok(suffix_package(1000, false));
  const Bytes file = suffix_package(300000, true);  // 3.9 MB; the old reader took ~10 s
  const auto start = std::chrono::steady_clock::now();
  PackageReader reader;
  const Status e = reader.open(file, "app.kiln");
  EXPECT_LT(seconds_since(start), 3.0);  // 28-87 ms here; the old reader took ~10 s
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_NE(text_of(e).find("app.kiln: NAMES record "), std::string::npos) << text_of(e);
  EXPECT_NE(text_of(e).find("name shares its bytes in STRINGS with record"), std::string::npos) << text_of(e);
}

// A table of up to 16 records is checked pair by pair, a larger one through a sort: both refuse keys
// that share bytes, naming a later record and an earlier one (the pair met first in their order).
TEST(PackageLimits, SuffixesOfOneStringAreRefusedInASmallTable) {
  for (const std::uint32_t length : {2u, 5u, 16u, 17u}) {
    PackageReader reader;
    const Status e = reader.open(suffix_package(length, true), "app.kiln");
    EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT) << length;
    const std::string expected = length <= 16 ? "app.kiln: NAMES record 1: name shares its bytes in STRINGS with record 0's"
                                              : "app.kiln: NAMES record 16: name shares its bytes in STRINGS with record 15's";
    EXPECT_NE(text_of(e).find(expected), std::string::npos) << length << ": " << text_of(e);
    open_ok(suffix_package(length, false));
  }
}

TEST(PackageLimits, KernelsMustBeFoundByTheirOwnNames) {
  PackageContents contents = sample_contents();
  Bytes file = write_ok(contents);
  const PackageReader pristine = open_ok(file);
  // Point the first NAMES record at another kernel: the kernel it named can no longer be found by it.
  auto name = get_record<NameRecord>(file, SectionKind::names, 0);
  const std::uint32_t owner = name.kernel;
  name.kernel = owner == 0 ? 1 : 0;
  set_record(file, SectionKind::names, 0, name);
  reseal(file);
  PackageReader reader;
  const Status e = reader.open(file, "app.kiln");
  if (!e) {
    EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
    EXPECT_NE(text_of(e).find("KERNELS record"), std::string::npos) << text_of(e);
  } else {
    ADD_FAILURE() << "a name moved to another kernel was accepted";
  }
}

TEST(PackageLimits, OverlappingImagesAreRefused) {
  Bytes file = write_ok(sample_contents());
  auto second = get_record<ImageRecord>(file, SectionKind::images, 1);
  second.offset = get_record<ImageRecord>(file, SectionKind::images, 0).offset;
  set_record(file, SectionKind::images, 1, second);
  reseal(file);
  PackageReader reader;
  const Status e = reader.open(file, "app.kiln");
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_NE(text_of(e).find("overlap image"), std::string::npos) << text_of(e);
}

TEST(PackageLimits, DecodedSizesAreBoundedByThePackage) {
  Bytes file = write_ok(sample_contents());
  auto image = get_record<ImageRecord>(file, SectionKind::images, 0);
  image.raw_size = max_image_size(file.size()) + 1;   // a zstd bomb declares what it decodes to
  set_record(file, SectionKind::images, 0, image);
  reseal(file);
  PackageReader reader;
  const Status e = reader.open(file, "app.kiln");
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_NE(text_of(e).find("IMAGES record 0: raw size"), std::string::npos) << text_of(e);
  EXPECT_EQ(max_image_size(1000), 1024000u);
  EXPECT_EQ(max_image_size(std::uint64_t{1} << 40), k_max_image_size);
}

TEST(PackageLimits, AllImagesTogetherAreBoundedByThePackage) {
  Bytes file = write_ok(sample_contents());
  // Each under its own ceiling, together over the package's: a reader that decodes every image
  // (kiln verify) would otherwise decode (images x 1024) times the file.
  const std::uint64_t half = max_total_image_size(file.size()) / 2 + 1;
  for (std::size_t i = 0; i < 2; ++i) {
    auto image = get_record<ImageRecord>(file, SectionKind::images, i);
    image.raw_size = half;
    set_record(file, SectionKind::images, i, image);
  }
  reseal(file);
  PackageReader reader;
  const Status e = reader.open(file, "app.kiln");
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_NE(text_of(e).find("IMAGES record 1: the images' raw sizes add up to more than"), std::string::npos)
      << text_of(e);
}

TEST(PackageLimits, AtMost256Targets) {
  PackageContents contents;
  for (std::uint32_t arch = 100; arch < 100 + k_max_targets; ++arch) contents.targets.push_back("sm_" + std::to_string(arch));
  open_ok(write_ok(contents));
  contents.targets.push_back("compute_80");
  PackageReader reader;
  const Status e = reader.open(write_ok(contents), "app.kiln");
  EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
  EXPECT_NE(text_of(e).find("more than 256 targets"), std::string::npos) << text_of(e);
}

TEST(ImageCheck, AcceptsWellFormedImages) {
  EXPECT_EQ(check_image(cubin_of("body", 90), *parse_target("sm_90")), "");
  EXPECT_EQ(check_image(cubin_of("body", 90), *parse_target("sm_90a")), "");
  EXPECT_EQ(check_image(ptx_of(".version 9.0\n.target sm_90\n"), *parse_target("compute_90")), "");
}

TEST(ImageCheck, RefusesWhatTheDriverCannotRead) {
  const Target sm90 = *parse_target("sm_90");
  EXPECT_EQ(check_image({}, sm90), "is too small for an ELF header (0 bytes)");
  EXPECT_EQ(check_image(bytes_of(std::string(100, 't')), sm90), "is not an ELF file");
  EXPECT_EQ(check_image(cubin_of("body", 80), sm90), "is a cubin for sm_80, not sm_90");
  Bytes far = cubin_of("body", 90);
  const std::uint64_t away = std::uint64_t{1} << 63;
  std::memcpy(far.data() + 40, &away, 8);
  EXPECT_EQ(check_image(far, sm90), "has its section header table outside its 136 bytes");
  Bytes many = cubin_of("body", 90);
  many[60] = std::byte{0xff};
  EXPECT_EQ(check_image(many, sm90), "has its section header table outside its 136 bytes");
  Bytes machine = cubin_of("body", 90);
  machine[18] = std::byte{62};
  EXPECT_EQ(check_image(machine, sm90), "is an ELF file for machine 62, not CUDA (190)");
  const Target ptx = *parse_target("compute_90");
  EXPECT_EQ(check_image(bytes_of(".version 9.0 .target"), ptx), "is PTX without its terminating NUL byte");
  EXPECT_EQ(check_image(ptx_of(".target sm_90"), ptx), "is PTX without a .version directive");
  EXPECT_EQ(check_image(ptx_of(std::string(".version\0.target", 16)), ptx), "is PTX with a NUL byte before its end");
}

}  // namespace
}  // namespace kiln::format::testing
