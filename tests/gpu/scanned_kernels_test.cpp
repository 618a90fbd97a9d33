// Kernels the scanner found (issue 4): the package built from a manifest that names only sources and
// targets runs each of its kernels correctly on the GPU, asked for by the names the scanner and the
// host code gave them. (The scanner's own fixtures, scan_fixtures.kiln: scanned_fixtures_test.cpp.)
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace kiln::gpu_test {
namespace {

// tests/fixtures/projects/scan: device.cu (NVRTC) and host_side.cu (nvcc), requests in src/app.cpp.
class ScannedKernels : public ::testing::Test {
protected:
  kiln::Package package = open_package("scan.kiln");
};

TEST_F(ScannedKernels, RequestedSpellingRunsTheBlockSum) {
  // src/app.cpp asks for "block_sum<float, 256u>"; nothing else instantiates it.
  constexpr int block = 256, blocks = 3;
  const std::vector<float> in = ramp<float>(block * blocks, 17);
  DeviceBuffer<float> device_in(in);
  DeviceBuffer<float> out(blocks);
  package.kernel("block_sum<float, 256u>").launch(blocks, block, 0, nullptr, device_in.get(), out.get());
  synchronize();
  const std::vector<float> sums = out.download();
  for (int b = 0; b < blocks; ++b) {
    const float expected = std::accumulate(in.begin() + b * block, in.begin() + (b + 1) * block, 0.0f);
    EXPECT_EQ(sums[b], expected) << "block " << b;
  }
  // The canonical spelling finds the same kernel.
  EXPECT_EQ(package.kernel("block_sum<float, 256>").name(), package.kernel("block_sum<float, 256u>").name());
}

TEST_F(ScannedKernels, ExplicitInstantiationAndSpecializationRun) {
  DeviceBuffer<float> f(std::vector<float>(32, 1.5f));
  package.kernel("scale<float>").launch(1, 32, 0, nullptr, f.get(), 2.0f);
  DeviceBuffer<int> i(std::vector<int>(32, 5));
  package.kernel("scale<int>").launch(1, 32, 0, nullptr, i.get(), 3);   // the specialization: x * f + 1
  synchronize();
  EXPECT_EQ(f.download(), std::vector<float>(32, 3.0f));
  EXPECT_EQ(i.download(), std::vector<int>(32, 16));
}

TEST_F(ScannedKernels, PlainAndInternalKernelsRun) {
  DeviceBuffer<float> x(std::vector<float>(32, 4.0f));
  package.kernel("doubled").launch(1, 32, 0, nullptr, x.get());
  DeviceBuffer<int> one(1);
  package.kernel("(anonymous namespace)::internal").launch(1, 1, 0, nullptr, one.get());
  synchronize();
  EXPECT_EQ(x.download(), std::vector<float>(32, 8.0f));
  EXPECT_EQ(one.download(), std::vector<int>{1});
}

// host_side.cu has host code, so nvcc compiled it: a launch in main, an address taken, and a
// request from src/app.cpp for an instantiation nothing else makes.
TEST_F(ScannedKernels, NvccCompiledKernelsRun) {
  DeviceBuffer<float> f(32);
  package.kernel("ops::fill<float>").launch(1, 32, 0, nullptr, f.get(), 2.5f);
  DeviceBuffer<double> d(32);
  package.kernel("ops::fill<double>").launch(1, 32, 0, nullptr, d.get(), -1.25);
  DeviceBuffer<float> t(std::vector<float>{3.0f});
  package.kernel("ops::touch").launch(1, 1, 0, nullptr, t.get());
  DeviceBuffer<int> s(std::vector<int>{40});
  package.kernel("step<2>").launch(1, 1, 0, nullptr, s.get());
  synchronize();
  EXPECT_EQ(f.download(), std::vector<float>(32, 2.5f));
  EXPECT_EQ(d.download(), std::vector<double>(32, -1.25));
  EXPECT_EQ(t.download(), std::vector<float>{6.0f});
  EXPECT_EQ(s.download(), std::vector<int>{42});
}

TEST_F(ScannedKernels, DeclaredVariablesAreKept) {
  // The scanner keeps every variable the sources declare, without the manifest listing them.
  EXPECT_EQ(package.global("coefficients").size, 4 * sizeof(float));
  EXPECT_EQ(package.global("counter").size, sizeof(int));
  EXPECT_EQ(package.global("host_side_table").size, 8 * sizeof(float));
}

}  // namespace
}  // namespace kiln::gpu_test
