// What the format has for split packages (kiln split): the in-other-file kernel flag, written, read and
// refused where it contradicts KERNEL_TARGETS; the split files' names and metadata lists; and a
// package read back into PackageContents, which writes the same bytes again.
#include "package_fixture.hpp"

#include "writer/package_contents.hpp"
#include "format/split_files.hpp"

#include <gtest/gtest.h>

namespace kiln::format::testing {
namespace {

using Indices = std::vector<std::uint32_t>;

PackageContents with_kernel(PackageContents c, std::string_view canonical,
                            const std::function<void(PackageKernel&)>& edit) {
  for (PackageKernel& k : c.kernels)
    if (k.canonical_name == canonical) edit(k);
  return c;
}

PackageContents elsewhere_contents() {
  return with_kernel(sample_contents(), "red::block_sum<float, 256>",
                     [](PackageKernel& k) { k.flags |= k_kernel_in_other_file; });
}

TEST(KernelInOtherFile, IsInNoImageOfTheFile) {
  const Bytes file = write_ok(elsewhere_contents());
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.version_minor(), k_version_minor);
  const std::uint32_t sum = *r.find_kernel("red::block_sum<float,256>");
  EXPECT_TRUE(r.kernel_in_other_file(sum));
  EXPECT_FALSE(r.kernel_in_every_image(sum));
  EXPECT_EQ(r.kernel_targets(sum), Indices{});
  for (std::uint32_t t = 0; t < r.target_count(); ++t) EXPECT_FALSE(r.kernel_in_target(sum, t));
  const std::uint32_t saxpy = *r.find_kernel("saxpy");
  EXPECT_FALSE(r.kernel_in_other_file(saxpy));
  EXPECT_TRUE(r.kernel_in_every_image(saxpy));
  EXPECT_FALSE(r.kernel_in_other_file(r.kernel_count()));   // out of range: no
}

TEST(KernelInOtherFile, TheWriterRefusesItWithTargets) {
  const PackageContents both = with_kernel(elsewhere_contents(), "red::block_sum<float, 256>",
                                           [](PackageKernel& k) { k.targets = {"sm_90a"}; });
  EXPECT_EQ(message_of(write_package(both)),
            "kernel _Z9block_sumIfLi256EEvPKT_PS0_i (kernels/saxpy.cu) is said to be in another file and in images of "
            "this one");
}

TEST(KernelInOtherFile, TheReaderRefusesTheFlagOnAKernelWithTargetRecords) {
  const PackageContents partial = with_kernel(sample_contents(), "red::block_sum<float, 256>",
                                              [](PackageKernel& k) { k.targets = {"sm_90a"}; });
  Bytes file = write_ok(partial);
  const PackageReader r = open_ok(file);
  const std::uint32_t sum = *r.find_kernel("red::block_sum<float,256>");
  KernelRecord record = get_record<KernelRecord>(file, SectionKind::kernels, sum);
  record.flags |= k_kernel_in_other_file;
  set_record(file, SectionKind::kernels, sum, record);
  reseal(file);
  expect_corrupt(file, "KERNEL_TARGETS record 0: kernel " + std::to_string(sum) + " is flagged as in another file");
}

TEST(SplitFiles, CompanionNamesAndLists) {
  EXPECT_EQ(companion_tag(9), "cc9");
  EXPECT_EQ(companion_path("dir/app.kiln", 9), "dir/app.cc9.kiln");
  EXPECT_EQ(companion_path("C:\\pkgs\\app.kiln", 12), "C:\\pkgs\\app.cc12.kiln");
  EXPECT_EQ(companion_path("dir/app", 8), "dir/app.cc8.kiln");
  EXPECT_EQ(companion_path("app.pkg", 10), "app.pkg.cc10.kiln");
  EXPECT_EQ(parse_companion_tag("cc10"), std::optional<std::uint16_t>(10));
  for (const char* bad : {"cc", "cc0", "cc09", "c9", "cc9x", "cc-1", "cc12345", "CC9"})
    EXPECT_EQ(parse_companion_tag(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_companion_list(""), std::vector<std::uint16_t>{});
  EXPECT_EQ(parse_companion_list("cc8 cc9 cc12"), (std::vector<std::uint16_t>{8, 9, 12}));
  for (const char* bad : {"cc9 cc8", "cc8 cc8", "cc8  cc9", "cc8 ", " cc8", "cc8,cc9", "sm_90"})
    EXPECT_EQ(parse_companion_list(bad), std::nullopt) << bad;
}

// Reading a package back gives contents that write the same bytes: every table survives.
TEST(PackageContents, ReadBackWritesTheSameBytes) {
  for (const PackageContents& contents : {sample_contents(), variant_contents(), elsewhere_contents()}) {
    const Bytes file = write_ok(contents);
    const Result<PackageContents> read = read_contents(open_ok(file));
    ASSERT_TRUE(read);
    EXPECT_EQ(write_ok(*read), file);
  }
}

TEST(PackageContents, CompressedImagesAndCarriedSourcesToo) {
  PackageContents contents = sample_contents();
  contents.units[0].images[0].bytes = repetitive_bytes(4096);
  PackageCarriedUnit carried;
  carried.unit_source = contents.units[0].source;
  carried.source = {"kernels/saxpy.cu", "#include \"common.cuh\"\n__global__ void saxpy() {}\n"};
  carried.headers = {{"kernels/common.cuh", "#pragma once\n"}};
  carried.include_dirs = {"."};
  carried.options = {"-DN=4"};
  carried.link_options = {"-lineinfo"};
  carried.kernel_templates = {"saxpy"};
  carried.nvrtc_version = "13.0";
  contents.carried = {carried};
  const Bytes file = write_ok(contents);
  const PackageReader reader = open_ok(file);
  EXPECT_TRUE(any_image_compressed(reader));
  const Result<PackageContents> read = read_contents(reader);
  ASSERT_TRUE(read);
  WriteOptions options;
  options.compress = any_image_compressed(reader);
  EXPECT_EQ(write_ok(*read, options), file);
  WriteOptions raw;
  raw.compress = false;
  EXPECT_FALSE(any_image_compressed(open_ok(write_ok(sample_contents(), raw))));
}

TEST(PackageContents, ADamagedImageIsRefusedNamingIt) {
  Bytes file = write_ok(sample_contents());
  const PackageReader intact = open_ok(file);
  const std::size_t at = section_of(file, SectionKind::blobs).offset + intact.image(0).stored_size / 2;
  file[at] ^= std::byte{1};
  reseal(file);
  const Result<PackageContents> error = read_contents(open_ok(file));
  EXPECT_EQ(status_of(error), KILN_STATUS_IMAGE_CORRUPT);
  EXPECT_NE(text_of(error).find("kernels/saxpy.cu"), std::string::npos) << text_of(error);
}

}  // namespace
}  // namespace kiln::format::testing
