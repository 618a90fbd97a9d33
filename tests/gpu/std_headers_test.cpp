// Issue 31 on the GPU (tests/fixtures/projects/std_headers): a kernel written for NVRTC that calls
// std::numeric_limits, std::isfinite and std::sqrt computes what the host's standard library says,
// built through nvcc (a device-only source) and through NVRTC with Kiln's JIT-safe headers (the same
// kernel with -default-device), bit for bit alike.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace kiln::gpu_test {
namespace {

struct Results {
  std::vector<float> f;
  std::vector<double> d;
};

const std::vector<float> k_inputs = {1.0f, 4.0f, -9.0f, 2.0f, std::numeric_limits<float>::infinity(),
                                     -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                                     std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()};

Results run(const char* kernel) {
  kiln::Package package = open_package("std_headers.kiln");
  DeviceBuffer<float> in(k_inputs);
  DeviceBuffer<float> f(3 + k_inputs.size());
  DeviceBuffer<double> d(3);
  package.kernel(kernel).launch(1, 1, 0, nullptr, in.get(), f.get(), d.get(), static_cast<int>(k_inputs.size()));
  synchronize();
  return {f.download(), d.download()};
}

Results on_the_host() {
  Results r;
  r.f = {std::numeric_limits<float>::max(), std::numeric_limits<float>::epsilon(), std::numeric_limits<float>::lowest()};
  for (const float v : k_inputs) r.f.push_back(std::isfinite(v) ? std::sqrt(std::fabs(v)) : -1.0f);
  r.d = {std::numeric_limits<double>::max(), std::numeric_limits<double>::epsilon(), std::numeric_limits<double>::min()};
  return r;
}

template <class T> void expect_same_bits(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(got[i])),
                                                          std::bit_cast<std::uint64_t>(static_cast<double>(want[i])))
      << what << "[" << i << "]: " << got[i] << " against " << want[i];
}

TEST(StdHeaders, TheNvccRouteComputesTheHostsValues) {
  const Results got = run("limits_device_only");
  const Results want = on_the_host();
  expect_same_bits(got.f, want.f, "f");
  expect_same_bits(got.d, want.d, "d");
}

TEST(StdHeaders, TheJitSafeRouteComputesTheHostsValues) {
  const Results got = run("limits_default_device");
  const Results want = on_the_host();
  expect_same_bits(got.f, want.f, "f");
  expect_same_bits(got.d, want.d, "d");
}

}  // namespace
}  // namespace kiln::gpu_test
