// Device link groups and source variants on the GPU (issue 13), from the package of
// tests/fixtures/projects/linking: a kernel that calls device functions of two other sources (one
// compiled by nvcc) and reads their __constant__ variable; a kernel launched from the device
// (dynamic parallelism, the device runtime linked in); the same source built as two variants.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace kiln::gpu_test {
namespace {

TEST(Linking, AKernelCallsDeviceFunctionsAndReadsAConstantOfOtherSources) {
  kiln::Package package = open_package("linking.kiln");
  const int n = 1000;
  DeviceBuffer<int> out(n);
  package.kernel("linked_sum").launch((n + 255) / 256, 256, 0, nullptr, out.get(), n);
  synchronize();
  const std::vector<int> got = out.download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], 2 * i + 7 + (i + 100)) << "element " << i;
  // The group's __constant__ variable, written by the host, is what the kernel reads.
  std::uint64_t address = 0;
  std::size_t size = 0;
  ASSERT_EQ(kiln_package_get_global(package.get(), "coef", &address, &size), KILN_STATUS_SUCCESS) << kiln_last_error();
  EXPECT_EQ(size, sizeof(int));
  const int coef = 11;
  check_cuda(cudaMemcpy(reinterpret_cast<void*>(address), &coef, sizeof coef, cudaMemcpyHostToDevice), "write coef");
  package.kernel("linked_sum").launch((n + 255) / 256, 256, 0, nullptr, out.get(), n);
  synchronize();
  EXPECT_EQ(out.download()[10], 2 * 10 + 11 + 110);
}

TEST(Linking, AKernelLaunchesAKernelFromTheDevice) {
  kiln::Package package = open_package("linking.kiln");
  DeviceBuffer<int> out(std::vector<int>(32, -1));
  package.kernel("dp_parent").launch(1, 32, 0, nullptr, out.get());
  synchronize();
  std::vector<int> expected(32);
  for (int i = 0; i < 32; ++i) expected[i] = 3 * i;
  EXPECT_EQ(out.download(), expected);
}

TEST(Linking, EachVariantRunsItsOwnCode) {
  kiln::Package package = open_package("linking.kiln");
  DeviceBuffer<float> f(std::vector<float>(64, 1.5f));
  package.kernel("f32/variant_scale").launch(1, 64, 0, nullptr, f.get(), 2.0f, 64);
  DeviceBuffer<double> d(std::vector<double>(64, 1.5));
  package.kernel("f64/variant_scale").launch(1, 64, 0, nullptr, d.get(), 4.0, 64);
  synchronize();
  EXPECT_EQ(f.download(), std::vector<float>(64, 3.0f));
  EXPECT_EQ(d.download(), std::vector<double>(64, 6.0));
  // sizeof(REAL) tells which variant's code ran; the plain name is the one variant that has it.
  DeviceBuffer<double> filled(64);
  package.kernel("variant_fill<double>").launch(1, 64, 0, nullptr, filled.get(), 64);
  DeviceBuffer<float> filled_f32(64);
  package.kernel("f32/variant_fill<float>").launch(1, 64, 0, nullptr, filled_f32.get(), 64);
  synchronize();
  EXPECT_EQ(filled.download(), std::vector<double>(64, 8.0));
  EXPECT_EQ(filled_f32.download(), std::vector<float>(64, 4.0f));
  // Both variants' kernels live in one context at once, each from its own image.
  EXPECT_THROW(package.kernel("variant_scale"), kiln::Error);
}

}  // namespace
}  // namespace kiln::gpu_test
