// Versioning and identity: newer minors open (unknown sections skipped), other majors are refused
// with a message that says both versions (the formats of major 1, before Kiln's first release, with
// what to do), and files that are not packages are named as such.
#include "package_fixture.hpp"

#include "format/checksum.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kiln::format::testing {
namespace {

Status open_bytes(const Bytes& file) {
  PackageReader reader;
  return reader.open(file, "app.kiln");
}

// What a newer minor's writer may write: sections of kinds this reader does not know, before BLOBS.
Bytes newer_minor(const Bytes& file) {
  return with_version(with_section(with_section(file, 200, bytes_of("a section from the future")), 4000000000u, {}),
                      k_version_major, k_version_minor + 1);
}

TEST(PackageVersion, NewerMinorWithUnknownSectionOpens) {
  const Bytes file = newer_minor(write_ok(sample_contents()));
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.version_major(), 2);
  EXPECT_EQ(r.version_minor(), 1);
  ASSERT_EQ(r.section_count(), 17u);
  EXPECT_EQ(r.section(10).kind, static_cast<std::uint32_t>(SectionKind::kernel_targets));
  EXPECT_EQ(r.section(11).kind, static_cast<std::uint32_t>(SectionKind::unit_sources));
  EXPECT_EQ(r.section(12).kind, static_cast<std::uint32_t>(SectionKind::name_index));
  EXPECT_EQ(r.section(13).kind, 200u);
  EXPECT_EQ(r.section(13).size, 25u);
  EXPECT_EQ(r.section(14).kind, 4000000000u);
  EXPECT_EQ(r.section(15).kind, static_cast<std::uint32_t>(SectionKind::blobs));
  EXPECT_EQ(r.section(16).kind, static_cast<std::uint32_t>(SectionKind::index_pages));
  // Everything reads as from a file of this version.
  const Bytes plain = write_ok(sample_contents());
  const PackageReader p = open_ok(plain);
  ASSERT_EQ(r.kernel_count(), p.kernel_count());
  EXPECT_EQ(r.find_kernel("scale<float>"), p.find_kernel("scale<float>"));
  for (std::uint32_t i = 0; i < r.image_count(); ++i) {
    const Result<std::vector<std::byte>> a = r.read_image(i);
    const Result<std::vector<std::byte>> b = p.read_image(i);
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    EXPECT_EQ(*a, *b);
  }
  EXPECT_TRUE(r.verify_all_sections());
}

TEST(PackageVersion, UnknownSectionsAreStillChecksummed) {
  Bytes file = newer_minor(write_ok(sample_contents()));
  file[toc_of(file)[13].offset + 2] ^= std::byte{1};
  EXPECT_EQ(text_of(open_bytes(file)), "app.kiln: kind 200 section checksum mismatch");
}

TEST(PackageVersion, NewerMajorIsRefused) {
  const Bytes file = with_version(write_ok(sample_contents()), 3, 0);
  const Status e = open_bytes(file);
  EXPECT_EQ(status_of(e), KILN_STATUS_UNSUPPORTED_VERSION);
  EXPECT_EQ(
      text_of(e),
      "app.kiln: package format 3.0 is newer than this reader (2.x); rebuild it or update Kiln");
  // Before its checksum: a new major may lay out the rest of its header differently.
  Bytes garbled = file;
  for (std::size_t i = 12; i < 64; ++i) garbled[i] = std::byte{0xee};
  EXPECT_EQ(status_of(open_bytes(garbled)), KILN_STATUS_UNSUPPORTED_VERSION);
  // 12 bytes (magic and version) are enough to tell.
  EXPECT_EQ(status_of(open_bytes(Bytes(file.begin(), file.begin() + 12))),
            KILN_STATUS_UNSUPPORTED_VERSION);
  EXPECT_EQ(status_of(open_bytes(Bytes(file.begin(), file.begin() + 11))), KILN_STATUS_TRUNCATED);
}

// Formats 1.0 to 1.7 were Kiln's before its first release, which folded them into 2.0: a file of
// any of them is refused, before its checksum, naming its version and saying what to do.
class FormatBeforeTheFirstRelease : public ::testing::TestWithParam<std::uint16_t> {};

TEST_P(FormatBeforeTheFirstRelease, IsRefusedNamingItsVersion) {
  const std::uint16_t minor = GetParam();
  const Bytes file = with_version(write_ok(sample_contents()), 1, minor);
  const Status e = open_bytes(file);
  EXPECT_EQ(status_of(e), KILN_STATUS_UNSUPPORTED_VERSION);
  EXPECT_EQ(text_of(e), "app.kiln: package format 1." + std::to_string(minor) +
                           " predates Kiln's first release (format 2.0): rebuild the package with this Kiln");
  EXPECT_EQ(text_of(open_bytes(Bytes(file.begin(), file.begin() + 12))), text_of(e));
  PackageReader deferred;
  EXPECT_EQ(text_of(deferred.open_deferred(file, "app.kiln")), text_of(e));
}

INSTANTIATE_TEST_SUITE_P(PackageVersion, FormatBeforeTheFirstRelease, ::testing::Range<std::uint16_t>(0, 8),
                         [](const ::testing::TestParamInfo<std::uint16_t>& param_info) {
                           return "Format1_" + std::to_string(param_info.param);
                         });

TEST(PackageVersion, OlderMajorIsRefused) {
  const Status e = open_bytes(with_version(write_ok(sample_contents()), 0, 9));
  EXPECT_EQ(status_of(e), KILN_STATUS_UNSUPPORTED_VERSION);
  EXPECT_EQ(text_of(e),
            "app.kiln: package format 0.9 predates Kiln's first release (format 2.0): rebuild the package with this Kiln");
}

TEST(PackageVersion, AnyMinorOfThisMajorOpens) {
  EXPECT_TRUE(open_bytes(with_version(write_ok(sample_contents()), 2, 65535)));
}

TEST(PackageVersion, LongerBufferIsFine) {
  Bytes file = write_ok(sample_contents());
  const std::size_t size = file.size();
  file.resize(size + 100, std::byte{0xcc});  // e.g. an embedded copy padded by the linker
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.bytes().size(), size);
}

TEST(PackageVersion, ForeignFilesAreNotPackages) {
  Bytes text = bytes_of("[package]\nname = \"app\"\ntargets = [\"sm_80\"]\n");
  Bytes elf = bytes_of(
      "\x7f"
      "ELF");
  elf.resize(200, std::byte{2});
  Bytes png =
      bytes_of("\x89PNG\r\n\x1a\n and more bytes to be long enough for a header...........");
  Bytes almost = bytes_of("\x89KILN\r\r\x1a");  // CR LF became CR CR: a text-mode transfer
  for (const Bytes* file : {&text, &elf, &png, &almost}) {
    const Status e = open_bytes(*file);
    EXPECT_EQ(status_of(e), KILN_STATUS_NOT_A_PACKAGE);
    EXPECT_EQ(text_of(e), "app.kiln: not a Kiln package (no Kiln magic at its start)");
  }
  EXPECT_EQ(status_of(open_bytes(bytes_of("ab"))),
            KILN_STATUS_NOT_A_PACKAGE);  // short, but not a prefix
  EXPECT_EQ(status_of(open_bytes(bytes_of("\x89KI"))),
            KILN_STATUS_TRUNCATED);  // a prefix of the magic
  EXPECT_EQ(text_of(open_bytes(Bytes{})), "app.kiln: the file is empty");
}

}  // namespace
}  // namespace kiln::format::testing
