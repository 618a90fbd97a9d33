// Errors clang 19 reports where nvcc accepts the code (tolerated_errors.cpp): the scan goes on with
// a warning at the error's place, and finds what the source holds. Any other error still fails it.
#include "scan_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace kiln::test {
namespace {

using namespace kiln::scan;
using Found = std::set<std::pair<std::string, FoundBy>>;
using Places = std::set<std::pair<int, int>>;

// line:column of each warning, every one saying that clang rejects what nvcc accepts.
Places tolerated_at(const ScanResult& r, const std::string& file) {
  Places out;
  for (const Diagnostic& d : r.diagnostics) {
    EXPECT_EQ(d.severity, Diagnostic::Severity::warning) << d.message;
    EXPECT_EQ(d.location.file, file);
    EXPECT_NE(d.message.find("(clang 19 rejects this, the scan goes on: nvcc accepts"), std::string::npos)
        << d.message;
    out.emplace(d.location.line, d.location.column);
  }
  return out;
}

TEST(ScanTolerated, SharedWithConstructorAndAttributeOrder) {
  const ScanResult r = scan_fixture("nvcc_lenient_shared.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"block_sum"}));
  EXPECT_EQ(instantiations(r), (Found{{"block_sum<256>", FoundBy::launch}}));
  EXPECT_EQ(tolerated_at(r, "nvcc_lenient_shared.cu"), (Places{{10, 26}, {11, 14}}));
}

// A launch from device code is tolerated; the kernels and the instantiations it launches are seen.
TEST(ScanTolerated, KernelsLaunchedFromDeviceCode) {
  const ScanResult r = scan_fixture("nvcc_device_launch.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"child", "parent", "scale", "tiled", "launch_tiled"}));
  EXPECT_EQ(instantiations(r), (Found{{"scale<float>", FoundBy::explicit_instantiation}}));
  // Each plain launch once; the configured template launch twice (its configuration, then its call).
  const Places places = tolerated_at(r, "nvcc_device_launch.cu");
  EXPECT_TRUE(places.count({5, 48}) && places.count({8, 25})) << places.size();
  EXPECT_EQ(std::count_if(places.begin(), places.end(), [](const auto& p) { return p.first == 20; }), 2) << places.size();
}

TEST(ScanTolerated, InlineAsmNvccAccepts) {
  const ScanResult r = scan_fixture("nvcc_lenient_asm.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"lane_sum<unsigned int>", FoundBy::explicit_instantiation}}));
  EXPECT_EQ(tolerated_at(r, "nvcc_lenient_asm.cu"), (Places{{8, 61}, {9, 31}, {10, 46}}));
}

TEST(ScanTolerated, InitializedVariableLengthArrayInHostCode) {
  const ScanResult r = scan_fixture("nvcc_vla_init.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"fill<int>", FoundBy::launch}}));
  EXPECT_EQ(tolerated_at(r, "nvcc_vla_init.cu"), (Places{{7, 17}}));
  EXPECT_TRUE(r.has_host_code);
}

// A tolerated error does not hide an ordinary one: the result is clang's errors and nothing else.
TEST(ScanTolerated, OrdinaryErrorStillFails) {
  const ScanResult r = scan_fixture("lenient_and_undeclared.cu");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 1u) << describe(r);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::error);
  EXPECT_EQ(r.diagnostics[0].location.line, 5);
  EXPECT_EQ(r.diagnostics[0].message, "use of undeclared identifier 'not_declared_anywhere'");
  EXPECT_TRUE(r.kernels.empty());
}

// Scans `text` as a .cu file of its own.
ScanResult scan_text(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "kiln_scan_tolerated";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  ScanInput input = fixture_input(name);
  input.directory = dir;
  return scan_source(input);
}

// clang stops after 20 errors by default; tolerated ones must not count, or a source with many of
// them would lose what follows.
TEST(ScanTolerated, ManyTolerancesDoNotStopTheParse) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "__device__ unsigned lane" + std::to_string(i) +
                                       "() { unsigned r; asm(\"mov.u32 %0, %laneid;\" : \"=r\"(r)); return r; }\n";
  text += "template <int N> __global__ void last(int* p) { p[0] = N; }\ntemplate __global__ void last<7>(int*);\n";
  const ScanResult r = scan_text("many_tolerated.cu", text);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"last<7>", FoundBy::explicit_instantiation}}));
  EXPECT_EQ(r.diagnostics.size(), 40u);
}

// Without clang's limit, the scanner keeps the first 20 errors and says there were more.
TEST(ScanTolerated, ErrorsAreCappedAtTwenty) {
  std::string text;
  for (int i = 0; i < 30; ++i) text += "__device__ int f" + std::to_string(i) + "() { return missing; }\n";
  const ScanResult r = scan_text("many_errors.cu", text);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 21u) << describe(r);
  EXPECT_EQ(r.diagnostics[19].location.line, 20);
  EXPECT_EQ(r.diagnostics[20].message, "too many errors; the rest are not shown");
}

}  // namespace
}  // namespace kiln::test
