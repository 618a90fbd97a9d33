// Every kernel of the example package (examples/saxpy) against a CPU reference. Runs in the main
// test process (the device's own cubin) and under KILN_FORCE_TARGET=ptx (PTX the driver compiles).
#include "gpu_support.hpp"

#include <gtest/gtest.h>

namespace kiln::gpu_test {
namespace {

class ExampleKernels : public testing::Test {
protected:
  kiln::Package m_package = open_package("saxpy.kiln");
};

TEST_F(ExampleKernels, Saxpy) {
  const int n = (1 << 20) + 3;
  const float a = 2.5f;
  const std::vector<float> x = ramp<float>(n, 1021), y = ramp<float>(n, 7);
  DeviceBuffer<float> dx(x), dy(y);
  m_package.kernel("saxpy").launch(blocks_for(n, 256), 256, 0, nullptr, a, static_cast<const float*>(dx.get()),
                                   dy.get(), n);
  synchronize();
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a * x[i] + y[i];
  EXPECT_EQ(dy.download(), want);
}

template <class T>
void check_scale(const kiln::Package& package, const char* name) {
  const int n = 100'003;
  const T factor = T(-1.5);
  const std::vector<T> x = ramp<T>(n, 4093, T(0.5));
  DeviceBuffer<T> dx(x);
  package.kernel(name).launch(blocks_for(n, 128), 128, 0, nullptr, dx.get(), factor, n);
  synchronize();
  std::vector<T> want(x);
  for (T& v : want) v *= factor;
  EXPECT_EQ(dx.download(), want) << name;
}

TEST_F(ExampleKernels, ScaleFloat) { check_scale<float>(m_package, "scale<float>"); }
TEST_F(ExampleKernels, ScaleDouble) { check_scale<double>(m_package, "scale<double>"); }

// One sum per block plus block_sum_bias, set through the package's global.
template <class T, int BLOCK>
void check_block_sum(const kiln::Package& package, const char* name, float bias) {
  const kiln::Global global = package.global("block_sum_bias");
  ASSERT_EQ(global.size, sizeof(float));
  check_cuda(cudaMemcpy(device_address(global.device_pointer), &bias, sizeof bias, cudaMemcpyHostToDevice),
             "cudaMemcpy to block_sum_bias");
  const int blocks = 517;
  const int n = blocks * BLOCK - 5;
  const std::vector<T> in = ramp<T>(n, 17);
  DeviceBuffer<T> din(in), dout(blocks);
  package.kernel(name).launch(blocks, BLOCK, 0, nullptr, static_cast<const T*>(din.get()), dout.get(), n);
  synchronize();
  std::vector<T> want(blocks, static_cast<T>(bias));
  for (int i = 0; i < n; ++i) want[i / BLOCK] += in[i];
  EXPECT_EQ(dout.download(), want) << name;
}

TEST_F(ExampleKernels, BlockSumFloat128) { check_block_sum<float, 128>(m_package, "block_sum<float, 128>", 0.5f); }
TEST_F(ExampleKernels, BlockSumFloat256) { check_block_sum<float, 256>(m_package, "block_sum<float, 256>", -2.0f); }
TEST_F(ExampleKernels, BlockSumDouble128) { check_block_sum<double, 128>(m_package, "block_sum<double, 128>", 1.5f); }
TEST_F(ExampleKernels, BlockSumDouble256) { check_block_sum<double, 256>(m_package, "block_sum<double, 256>", 0.0f); }

// Every spelling the package records finds the same kernel: as written, canonical, lowered.
TEST_F(ExampleKernels, AnyRecordedNameFindsTheSameKernel) {
  const kiln::Kernel canonical = m_package.kernel("block_sum<float, 256>");
  EXPECT_EQ(m_package.kernel("block_sum<float,256>").get(), canonical.get());
  EXPECT_EQ(m_package.kernel("_Z9block_sumIfLi256EEvPKT_PS0_i").get(), canonical.get());
  EXPECT_EQ(canonical.name(), "block_sum<float, 256>");
}

TEST_F(ExampleKernels, UnknownNamesAreReported) {
  kiln_kernel* kernel = nullptr;
  EXPECT_EQ(kiln_package_get_kernel(m_package.get(), "block_sum<int, 256>", &kernel), KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_NE(std::string(kiln_last_error()), "");
  std::uint64_t pointer = 0;
  std::size_t size = 0;
  EXPECT_EQ(kiln_package_get_global(m_package.get(), "no_such_variable", &pointer, &size),
            KILN_STATUS_VARIABLE_NOT_FOUND);
}

}  // namespace
}  // namespace kiln::gpu_test
