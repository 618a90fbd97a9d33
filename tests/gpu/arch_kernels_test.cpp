// Issue 10 on the GPU (tests/fixtures/projects/arch, built for sm_80, sm_90 and compute_80): kernels
// guarded by __CUDA_ARCH__ load from an image that holds them, or fail naming the targets that do;
// CUB's umbrella header, a standard header in device code and a source the scanner cannot read all
// build, load and compute what their sources say.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace kiln::gpu_test {
namespace {

class ArchKernels : public ::testing::Test {
protected:
  kiln::Package package = open_package("arch.kiln");

  // The __CUDA_ARCH__ a kernel of guarded.cu reports on this device.
  int reported_arch(const char* kernel) {
    DeviceBuffer<int> arch(1);
    package.kernel(kernel).launch(1, 1, 0, nullptr, arch.get());
    synchronize();
    return arch.download()[0];
  }

  // The target this device would load under the selection rules: the sm_80 cubin on 8.x, sm_90 on
  // 9.0, the compute_80 PTX elsewhere.
  static std::string unit_target(int arch) { return arch / 10 == 8 ? "sm_80" : arch == 90 ? "sm_90" : "compute_80"; }
};

TEST_F(ArchKernels, AKernelInEveryImageLoadsTheDevicesImage) {
  const int arch = device_arch();
  const std::string target = unit_target(arch);
  EXPECT_EQ(package.image("always").target, target);
  EXPECT_EQ(reported_arch("always"), target == "sm_90" ? 900 : 800);
}

TEST_F(ArchKernels, AKernelOnlyNewerImagesHoldLoadsThereOrFailsNamingThem) {
  if (device_arch() == 90) {
    EXPECT_EQ(package.image("from_sm90").target, "sm_90");
    EXPECT_EQ(reported_arch("from_sm90"), 900);
    return;
  }
  try {
    package.kernel("from_sm90");
    FAIL() << "from_sm90 is only in the sm_90 image";
  } catch (const kiln::Error& e) {
    EXPECT_EQ(e.status(), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
    EXPECT_NE(std::string(e.what()).find("sm_90"), std::string::npos) << e.what();
  }
}

TEST_F(ArchKernels, AKernelTheDevicesCubinLacksComesFromThePtxThatHoldsIt) {
  // before_sm90 is in the sm_80 cubin and the compute_80 PTX, not in sm_90: a 9.0 device JITs the PTX.
  const int arch = device_arch();
  const std::string expected = arch / 10 == 8 ? "sm_80" : "compute_80";
  EXPECT_EQ(package.image("before_sm90").target, expected);
  EXPECT_EQ(reported_arch("before_sm90"), 800);
}

TEST_F(ArchKernels, CubsUmbrellaHeaderKernelRuns) {
  constexpr int block = 128, blocks = 4;
  const std::vector<float> in = ramp<float>(block * blocks, 13);
  DeviceBuffer<float> device_in(in);
  DeviceBuffer<float> out(blocks);
  package.kernel("block_sum<128>").launch(blocks, block, 0, nullptr, device_in.get(), out.get());
  synchronize();
  const std::vector<float> sums = out.download();
  for (int b = 0; b < blocks; ++b)
    EXPECT_EQ(sums[b], std::accumulate(in.begin() + b * block, in.begin() + (b + 1) * block, 0.0f)) << b;
}

TEST_F(ArchKernels, StandardHeadersInDeviceCodeRun) {
  constexpr int n = 64;
  const std::vector<float> a = ramp<float>(n, 7), b = ramp<float>(n, 5, 2.0f);
  DeviceBuffer<float> da(a), db(b), out(n);
  package.kernel("hypotenuse<float>").launch(1, n, 0, nullptr, da.get(), db.get(), out.get(), n);
  synchronize();
  const std::vector<float> got = out.download();
  for (int i = 0; i < n; ++i) EXPECT_FLOAT_EQ(got[i], std::sqrt(a[i] * a[i] + b[i] * b[i])) << i;
}

TEST_F(ArchKernels, AKernelOfASourceTheScanCannotReadRuns) {
  constexpr int n = 100;
  DeviceBuffer<int> x(std::vector<int>(n, 41));
  package.kernel("add_one").launch(1, 128, 0, nullptr, x.get(), n);
  synchronize();
  EXPECT_EQ(x.download(), std::vector<int>(n, 42));
}

}  // namespace
}  // namespace kiln::gpu_test
