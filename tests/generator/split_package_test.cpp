// kiln split's rewrite on plain data: which file each image goes to, how kernels some images hold
// are narrowed or flagged per file, what every file keeps (kernels, units, variables, sources,
// metadata), where carried sources go, and what is refused.
#include "package/split_package.hpp"

#include "format/split_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::package {
namespace {

using format::PackageContents;

std::vector<std::byte> image(std::string_view text) {
  std::vector<std::byte> bytes;
  for (const char c : text) bytes.push_back(static_cast<std::byte>(c));
  return bytes;
}

// ops.cu for sm_80, sm_86, sm_90a, sm_100f, sm_120 and compute_90: `always` in every image,
// `hopper` in sm_90a only, `ptx_too` in sm_90a and compute_90.
PackageContents package() {
  PackageContents c;
  c.targets = {"sm_80", "sm_86", "sm_90a", "sm_100f", "sm_120", "compute_90"};
  format::PackageUnit unit{"ops.cu", {}};
  for (const std::string& t : c.targets) unit.images.push_back({t, image(t), t.starts_with("compute") ? 90u : 0u});
  c.units = {unit};
  c.kernels = {{"always", "always", "ops.cu", 0, {}, {}},
               {"hopper", "hopper", "ops.cu", 0, {}, {}, {"sm_90a"}},
               {"ptx_too", "ptx_too", "ops.cu", 0, {}, {}, {"sm_90a", "compute_90"}}};
  c.variables = {{"table", "table", "ops.cu", format::VariableKind::constant, 64}};
  c.sources = {{"ops.cu", format::SourceRole::source, 7}};
  c.metadata = {{"generator.version", "0.4.0"}};
  format::PackageCarriedUnit carried;
  carried.unit_source = "ops.cu";
  carried.source = {"ops.cu", "__global__ void always() {}"};
  carried.nvrtc_version = "13.0";
  c.carried = {carried};
  return c;
}

const format::PackageKernel& kernel(const PackageContents& c, std::string_view name) {
  return *std::find_if(c.kernels.begin(), c.kernels.end(), [&](const auto& k) { return k.lowered_name == name; });
}

std::string metadata(const PackageContents& c, std::string_view key) {
  for (const auto& [k, v] : c.metadata)
    if (k == key) return v;
  return "<none>";
}

TEST(SplitContents, PtxStaysAndEachMajorsCubinsGetAFile) {
  const Result<std::vector<SplitFile>> split = split_package(package(), "00000000000000aa");
  ASSERT_TRUE(split) << split.error().message;
  ASSERT_EQ(split->size(), 5u);
  const std::vector<std::pair<std::uint16_t, std::vector<std::string>>> expected = {
      {0, {"compute_90"}}, {8, {"sm_80", "sm_86"}}, {9, {"sm_90a"}}, {10, {"sm_100f"}}, {12, {"sm_120"}}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const SplitFile& file = (*split)[i];
    EXPECT_EQ(file.major, expected[i].first);
    EXPECT_EQ(file.contents.targets, expected[i].second);
    std::vector<std::string> imaged;
    for (const auto& img : file.contents.units.at(0).images) {
      imaged.push_back(img.target);
      EXPECT_EQ(img.bytes, image(img.target));
    }
    EXPECT_EQ(imaged, expected[i].second);
    // Every file keeps every kernel, unit, variable and source, and the build's metadata.
    EXPECT_EQ(file.contents.kernels.size(), 3u);
    EXPECT_EQ(file.contents.variables.size(), 1u);
    EXPECT_EQ(file.contents.sources.size(), 1u);
    EXPECT_EQ(metadata(file.contents, "generator.version"), "0.4.0");
    EXPECT_EQ(metadata(file.contents, format::k_split_id_key), "00000000000000aa");
    EXPECT_EQ(file.contents.carried.size(), file.major == 0 ? 1u : 0u);   // run-time compiles read the main file
  }
  EXPECT_EQ(metadata((*split)[0].contents, format::k_split_files_key), "cc8 cc9 cc10 cc12");
  EXPECT_EQ(metadata((*split)[0].contents, format::k_split_file_key), "<none>");
  EXPECT_EQ(metadata((*split)[2].contents, format::k_split_file_key), "cc9");
}

TEST(SplitContents, KernelsSomeImagesHoldAreNarrowedOrFlaggedPerFile) {
  const Result<std::vector<SplitFile>> split = split_package(package(), "00000000000000aa");
  ASSERT_TRUE(split);
  const PackageContents& main = (*split)[0].contents;
  const PackageContents& cc8 = (*split)[1].contents;
  const PackageContents& cc9 = (*split)[2].contents;
  EXPECT_EQ(kernel(main, "always").targets, std::vector<std::string>{});
  EXPECT_EQ(kernel(main, "always").flags & format::k_kernel_in_other_file, 0u);
  EXPECT_NE(kernel(main, "hopper").flags & format::k_kernel_in_other_file, 0u);
  EXPECT_EQ(kernel(main, "ptx_too").targets, std::vector<std::string>{"compute_90"});
  EXPECT_NE(kernel(cc8, "hopper").flags & format::k_kernel_in_other_file, 0u);
  EXPECT_NE(kernel(cc8, "ptx_too").flags & format::k_kernel_in_other_file, 0u);
  EXPECT_EQ(kernel(cc9, "hopper").targets, std::vector<std::string>{"sm_90a"});
  EXPECT_EQ(kernel(cc9, "hopper").flags & format::k_kernel_in_other_file, 0u);
}

TEST(SplitContents, APackageWithoutCubinsIsItsMainFileAlone) {
  PackageContents c = package();
  c.targets = {"compute_90"};
  c.units[0].images.resize(1);
  c.units[0].images[0] = {"compute_90", image("compute_90"), 90};
  c.kernels.resize(1);
  const Result<std::vector<SplitFile>> split = split_package(c, "00000000000000aa");
  ASSERT_TRUE(split);
  ASSERT_EQ(split->size(), 1u);
  EXPECT_EQ(metadata((*split)[0].contents, format::k_split_files_key), "");
}

TEST(SplitContents, AFileOfASplitIsNotSplitAgain) {
  PackageContents c = package();
  c.metadata.emplace_back("split.id", "00000000000000aa");
  const Result<std::vector<SplitFile>> split = split_package(c, "00000000000000bb");
  ASSERT_FALSE(split);
  EXPECT_EQ(split.error().message,
            "it is already a file of a split package (split.id 00000000000000aa); split the package it came from");
}

}  // namespace
}  // namespace kiln::package
