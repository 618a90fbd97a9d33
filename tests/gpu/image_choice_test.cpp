// Which image ran, told by the kernel itself (__CUDA_ARCH__): the device's own cubin normally; the
// package's PTX when the process runs with KILN_FORCE_TARGET=ptx (the ctest test
// gpu_tests_forced_ptx runs this binary so, with --gtest_filter=ForcedPtx.*:ExampleKernels.*).
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace kiln::gpu_test {
namespace {

int arch_that_ran(const kiln::Package& package) {
  DeviceBuffer<int> out(1);
  package.kernel("cuda_arch").launch(1, 1, 0, nullptr, out.get());
  synchronize();
  return out.download()[0];
}

std::string_view forced_target() {
  const char* forced = std::getenv("KILN_FORCE_TARGET");
  return forced ? forced : "";
}

bool has_target(const kiln::Package& package, const std::string& target) {
  for (const std::string& t : package.targets()) {
    if (t == target) return true;
  }
  return false;
}

TEST(ImageChoice, TheDevicesOwnCubinRuns) {
  if (!forced_target().empty()) GTEST_SKIP() << "KILN_FORCE_TARGET is set";
  kiln::Package package = open_package("gpu.kiln");
  const int arch = device_arch();
  // gpu.kiln is built for the default targets, every SASS architecture NVRTC knows: a missing cubin
  // for this device is a regression, not a reason to skip.
  ASSERT_TRUE(has_target(package, "sm_" + std::to_string(arch))) << "the package has no sm_" << arch << " cubin";
  EXPECT_EQ(arch_that_ran(package), arch * 10);
}

// The package's PTX target with the highest arch (the default targets have one: compute_75).
int ptx_arch(const kiln::Package& package) {
  int arch = 0;
  for (const std::string& t : package.targets()) {
    if (t.rfind("compute_", 0) == 0) arch = std::max(arch, std::atoi(t.c_str() + 8));
  }
  return arch;
}

TEST(ForcedPtx, ThePackagesPtxRuns) {
  if (forced_target() != "ptx") GTEST_SKIP() << "runs with KILN_FORCE_TARGET=ptx (ctest: gpu_tests_forced_ptx)";
  kiln::Package package = open_package("gpu.kiln");
  const int arch = ptx_arch(package);
  ASSERT_NE(arch, 0) << "the package holds no PTX";
  EXPECT_EQ(arch_that_ran(package), arch * 10);
}

}  // namespace
}  // namespace kiln::gpu_test
