// A package's miss compiled at run time from the sources it carries, with the toolkit's real NVRTC
// and nvJitLink and the fake driver (9.0): a new instantiation, a kernel with no image for the device,
// names qualified as the source declares them, one compile for many threads, the errors (a name no
// carried source declares, a compile error with the log, a header the build never read), coverage.
#include "runtime_fixture.hpp"

#include "kiln/kiln.h"
#include "kiln/program.hpp"
#include "store/harvest_record.hpp"
#include "test_process.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace kiln::testing {
namespace {

const char* k_source = R"(#include "common.cuh"
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
#include "blackwell.cuh"   // never read by a build for sm_80 or sm_90
#endif
namespace ops {
template <typename T> __global__ void scale(T* x, T a, int n) {
  const int i = global_index();
  if (i < n) x[i] = x[i] * a * FACTOR;
}
}  // namespace ops
)";

class FallbackTest : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (const std::string why = use_toolkit_compilers(); !why.empty()) GTEST_SKIP() << why;
  }
  // Built for sm_80 only, so a 9.0 device has no image: its cubin does not run across majors.
  static Bytes carried_package(const std::string& nvrtc_version = "13.0") {
    PackageSpec spec;
    spec.units = {UnitSpec{"kernels/scale.cu", {"sm_80"}}};
    spec.kernels = {KernelSpec("ops::scale<float>", "kernels/scale.cu").with_lowered("_ZN3ops5scaleIfEEvPT_S1_i")};
    format::PackageCarriedUnit carried;
    carried.unit_source = "kernels/scale.cu";
    carried.source = {"kernels/scale.cu", k_source};
    carried.headers = {{"include/common.cuh", "#pragma once\n__device__ inline int global_index() {\n"
                                              "  return blockIdx.x * blockDim.x + threadIdx.x;\n}\n"}};
    carried.include_dirs = {"include"};
    carried.options = {"-DFACTOR=3", "--std=c++17"};   // as a build spells them
    carried.kernel_templates = {"ops::scale"};
    carried.nvrtc_version = nvrtc_version;
    spec.carried = {carried};
    return build_package(spec);
  }
};

TEST_F(FallbackTest, AnInstantiationThePackageLacksIsCompiledForTheDevice) {
  kiln::Package package = open(carried_package());
  const kiln_cache_stats before = kiln::cache_stats();
  kiln::Kernel k = package.kernel("scale< double >");   // unqualified: qualified as the source declares it
  EXPECT_EQ(k.name(), "ops::scale<double>");
  EXPECT_EQ(k.lowered_name(), "_ZN3ops5scaleIdEEvPT_S1_i") << "the symbol in the image compiled at run time";
  double* x = nullptr;
  double a = 2;
  int n = 4;
  k.launch(1, 32, 0, nullptr, x, a, n);
  ASSERT_EQ(fake->launches().size(), 1u);
  EXPECT_EQ(fake->launches()[0].kernel, "_ZN3ops5scaleIdEEvPT_S1_i");
  // Asked again, by another spelling: the same kernel, compiled once.
  EXPECT_EQ(package.kernel("ops::scale<double>").get(), k.get());
  const kiln_cache_stats after = kiln::cache_stats();
  EXPECT_EQ((after.compiles + after.cache_hits) - (before.compiles + before.cache_hits), 1u);
}

// What kiln harvest reads (store/harvest_record.hpp): the name as asked and as resolved, the carried
// source, the device's target and the package, by the last part of the name it was opened by.
TEST_F(FallbackTest, ACompiledKernelIsRecordedInTheCacheForKilnHarvest) {
  kiln::Package package = open(carried_package(), "dist/extended.kiln");
  package.kernel("scale<short>");
  const store::HarvestRead read = store::read_harvest_records(std::getenv("KILN_CACHE_DIR"));
  EXPECT_TRUE(read.warnings.empty()) << read.warnings.front();
  const auto found = std::find_if(read.records.begin(), read.records.end(),
                                  [](const store::HarvestRecord& r) { return r.asked == "scale<short>"; });
  ASSERT_NE(found, read.records.end());
  EXPECT_EQ(found->expression, "ops::scale<short>");
  EXPECT_EQ(found->source, "kernels/scale.cu");
  EXPECT_EQ(found->target, "sm_90");
  EXPECT_EQ(found->package_file, "extended.kiln");
  EXPECT_NE(found->package_checksum, 0u);
}

TEST_F(FallbackTest, AKernelWithNoImageForTheDeviceIsCompiledForIt) {
  kiln::Package package = open(carried_package());
  EXPECT_EQ(package.coverage("ops::scale<float>", 90), KILN_COVERAGE_RUNTIME_COMPILE);
  EXPECT_EQ(package.coverage("ops::scale<float>", 86), KILN_COVERAGE_CUBIN);
  kiln::Kernel k = package.kernel("ops::scale<float>");
  float* x = nullptr;
  float a = 2;
  int n = 4;
  k.launch(1, 32, 0, nullptr, x, a, n);
  ASSERT_EQ(fake->launches().size(), 1u);
  EXPECT_EQ(fake->launches()[0].kernel, "_ZN3ops5scaleIfEEvPT_S1_i");
}

TEST_F(FallbackTest, ThreadsMissingOneKernelCompileItOnce) {
  kiln::Package package = open(carried_package());
  const kiln_cache_stats before = kiln::cache_stats();
  std::vector<kiln_kernel*> kernels(8);
  const int failures = run_concurrently(8, 1, [&](int thread, int) {
    kernels[thread] = package.kernel("ops::scale<int>").get();
  });
  EXPECT_EQ(failures, 0);
  for (kiln_kernel* k : kernels) EXPECT_EQ(k, kernels[0]);
  const kiln_cache_stats after = kiln::cache_stats();
  EXPECT_EQ((after.compiles + after.cache_hits) - (before.compiles + before.cache_hits), 1u);
}

TEST_F(FallbackTest, ANameNoCarriedSourceDeclaresStaysNotFound) {
  kiln::Package package = open(carried_package());
  const std::string message = error_of([&] { package.kernel("reduce<float>"); }, KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_NE(message.find("no kernel 'reduce<float>' in app.kiln"), std::string::npos) << message;
  EXPECT_NE(message.find("no source app.kiln carries declares a kernel 'reduce<float>'"), std::string::npos) << message;
  EXPECT_NE(message.find("kernels/scale.cu (ops::scale)"), std::string::npos) << message;
}

TEST_F(FallbackTest, ACompileErrorIsCompileFailedWithTheLogInTheBuildsPaths) {
  kiln::Package package = open(carried_package());
  const std::string message = error_of([&] { package.kernel("ops::scale<NoSuchType>"); }, KILN_STATUS_COMPILE_FAILED);
  EXPECT_NE(message.find("app.kiln: compiling 'ops::scale<NoSuchType>' from kernels/scale.cu for sm_90"),
            std::string::npos) << message;
  EXPECT_NE(message.find("NoSuchType"), std::string::npos) << message;
  EXPECT_EQ(message.find("kiln-rtc-"), std::string::npos) << "no private directory in messages: " << message;
  EXPECT_NE(std::string(kiln_package_last_error(package.get())).find("NoSuchType"), std::string::npos);
}

TEST_F(FallbackTest, AHeaderTheBuildNeverReadIsNamed) {
  fake->devices = {FakeDevice{100}};
  kiln::Package package = open(carried_package());
  const std::string message = error_of([&] { package.kernel("ops::scale<float>"); }, KILN_STATUS_COMPILE_FAILED);
  EXPECT_NE(message.find("cannot open source file \"blackwell.cuh\""), std::string::npos) << message;
  EXPECT_NE(message.find("this instantiation includes one the build never read"), std::string::npos) << message;
}

// A carried unit is compiled by an NVRTC of the major its build used: with none to be had, the miss
// is still told first, then why nothing can compile the kernel.
TEST_F(FallbackTest, NoNvrtcOfTheBuildsMajorIsNoCompilerAfterTheMiss) {
  kiln::Package package = open(carried_package("99.0"));
  const std::string message = error_of([&] { package.kernel("ops::scale<double>"); }, KILN_STATUS_NO_COMPILER);
  EXPECT_EQ(message.find("no kernel 'ops::scale<double>' in app.kiln"), 0u) << message;
  EXPECT_NE(message.find("; cannot compile 'ops::scale<double>' at run time: no usable NVRTC and nvJitLink"),
            std::string::npos) << message;
  EXPECT_NE(message.find("cannot read options written for NVRTC 99"), std::string::npos) << message;
}

TEST_F(FallbackTest, APackageWithoutCarriedSourcesSaysNothingMore) {
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  const std::string message = error_of([&] { package.kernel("k2"); }, KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_EQ(message.find("carries"), std::string::npos) << message;
}

// NVRTC 13.0 goes on tracing after a traced compile that fails (a program's: those record the
// headers they read), and wrote the next compile's trace to ".json" in the working directory; every
// compile now traces into a temporary file of its own.
TEST_F(FallbackTest, CompilesWriteNothingInTheWorkingDirectory) {
  const std::filesystem::path previous = std::filesystem::current_path();
  const std::filesystem::path here =
      std::filesystem::temp_directory_path() / ("kiln-cwd-" + std::to_string(kiln::test::process_id()));
  std::filesystem::create_directories(here);
  std::filesystem::current_path(here);
  kiln::Program broken;
  broken.name = "broken.cu";
  broken.source = "__global__ void broken(int* x) { x[0] = undeclared; }\n";
  broken.kernels = {"broken"};
  error_of([&] { broken.compile(); }, KILN_STATUS_COMPILE_FAILED);
  kiln::Package package = open(carried_package());
  package.kernel("ops::scale<long>");   // a carried unit's compile, after the failed one
  std::filesystem::current_path(previous);
  std::vector<std::string> written;
  for (const auto& entry : std::filesystem::directory_iterator(here)) written.push_back(entry.path().filename().string());
  std::filesystem::remove_all(here);
  EXPECT_TRUE(written.empty()) << "the compiles wrote " << ::testing::PrintToString(written) << " in the working directory";
}

}  // namespace
}  // namespace kiln::testing
