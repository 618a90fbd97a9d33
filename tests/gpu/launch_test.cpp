// Launching: argument checks (C and C++), preload, dynamic shared memory above 48 KiB, a thread
// without a context, and many threads asking for and launching kernels at once.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <latch>
#include <mutex>
#include <numeric>
#include <thread>

namespace kiln::gpu_test {
namespace {

// saxpy(float a, const float* x, float* y, int n) with too few and too many arguments: refused
// before the driver sees them, and y is left alone.
TEST(Launch, WrongArgumentCountIsRefusedByTheCInterface) {
  kiln::Package package = open_package("saxpy.kiln");
  kiln_kernel* saxpy = nullptr;
  ASSERT_EQ(kiln_package_get_kernel(package.get(), "saxpy", &saxpy), KILN_STATUS_SUCCESS) << kiln_last_error();
  const std::vector<float> y(64, 1.0f);
  DeviceBuffer<float> dx(y), dy(y);
  float a = 2.0f;
  float* x_pointer = dx.get();
  float* y_pointer = dy.get();
  int n = 64;
  void* args[] = {&a, &x_pointer, &y_pointer, &n, &n};
  const kiln_dim3 grid{1, 1, 1}, block{64, 1, 1};
  EXPECT_EQ(kiln_kernel_launch(saxpy, grid, block, 0, nullptr, args, 3), KILN_STATUS_ARGUMENT_MISMATCH);
  EXPECT_NE(std::string(kiln_last_error()), "");
  EXPECT_EQ(kiln_kernel_launch(saxpy, grid, block, 0, nullptr, args, 5), KILN_STATUS_ARGUMENT_MISMATCH);
  synchronize();
  EXPECT_EQ(dy.download(), y);
  // The right count still launches.
  EXPECT_EQ(kiln_kernel_launch(saxpy, grid, block, 0, nullptr, args, 4), KILN_STATUS_SUCCESS) << kiln_last_error();
  synchronize();
  EXPECT_EQ(dy.download(), std::vector<float>(64, 3.0f));
}

TEST(Launch, WrongArgumentTypeThrowsInTheCppInterface) {
  kiln::Package package = open_package("saxpy.kiln");
  const kiln::Kernel saxpy = package.kernel("saxpy");
  DeviceBuffer<float> dx(64), dy(64);
  const double wrong_a = 2.0;  // 8 bytes where the kernel takes a 4-byte float
  try {
    saxpy.launch(1, 64, 0, nullptr, wrong_a, dx.get(), dy.get(), 64);
    FAIL() << "a double for a float parameter was launched";
  } catch (const kiln::Error& error) {
    EXPECT_EQ(error.status(), KILN_STATUS_ARGUMENT_MISMATCH) << error.what();
  }
  try {
    saxpy.launch(1, 64, 0, nullptr, 2.0f, dx.get(), dy.get());
    FAIL() << "three arguments for four parameters were launched";
  } catch (const kiln::Error& error) {
    EXPECT_EQ(error.status(), KILN_STATUS_ARGUMENT_MISMATCH) << error.what();
  }
}

TEST(Launch, KernelsRunAfterPreload) {
  kiln::Package package = open_package("saxpy.kiln");
  package.preload();
  const int n = 1000;
  const std::vector<double> x = ramp<double>(n, 97);
  DeviceBuffer<double> dx(x), dout(blocks_for(n, 128));
  package.kernel("scale<double>").launch(blocks_for(n, 128), 128, 0, nullptr, dx.get(), 2.0, n);
  package.kernel("block_sum<double, 128>")
      .launch(blocks_for(n, 128), 128, 0, nullptr, static_cast<const double*>(dx.get()), dout.get(), n);
  synchronize();
  const kiln::Global bias = package.global("block_sum_bias");  // as this package's image left it
  float bias_value = -1.0f;
  check_cuda(cudaMemcpy(&bias_value, device_address(bias.device_pointer), sizeof bias_value, cudaMemcpyDeviceToHost),
             "cudaMemcpy from block_sum_bias");
  std::vector<double> want(blocks_for(n, 128), static_cast<double>(bias_value));
  for (int i = 0; i < n; ++i) want[i / 128] += 2.0 * x[i];
  EXPECT_EQ(dout.download(), want);
}

TEST(Launch, DynamicSharedMemoryOf64KiB) {
  int optin = 0;
  check_cuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0), "shared memory limit");
  constexpr int n = 16384;  // ints: 64 KiB
  if (optin < n * 4) GTEST_SKIP() << "the device allows only " << optin << " bytes of shared memory per block";
  kiln::Package package = open_package("gpu.kiln");
  std::vector<int> in(n);
  std::iota(in.begin(), in.end(), 0);
  DeviceBuffer<int> din(in), dout(n);
  package.kernel("reverse_in_shared").launch(1, 1024, n * 4, nullptr, static_cast<const int*>(din.get()), dout.get(), n);
  synchronize();
  std::vector<int> want(in.rbegin(), in.rend());
  EXPECT_EQ(dout.download(), want);
}

// A kernel resolved on one thread and launched from a new thread that has no current context: the
// launch goes straight to the driver (one device), which refuses it; Kiln then makes device 0's
// primary context current, as any first call does, and launches again.
TEST(Launch, AThreadWithoutAContextLaunchesAKernelResolvedElsewhere) {
  kiln::Package package = open_package("saxpy.kiln");
  const kiln::Kernel scale = package.kernel("scale<float>");
  const int n = 1000;
  const std::vector<float> x = ramp<float>(n, 31);
  DeviceBuffer<float> dx(x);
  std::string error;
  std::thread([&] {
    try {
      scale.launch(blocks_for(n, 256), 256, 0, nullptr, dx.get(), 2.0f, n);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }).join();
  ASSERT_EQ(error, "");
  synchronize();
  std::vector<float> want(x);
  for (float& v : want) v *= 2.0f;
  EXPECT_EQ(dx.download(), want);
}

// 8 threads, released together on a package nothing has been loaded from: each asks for kernels of
// both units (so loads race) and launches on its own buffer 20 times.
TEST(Launch, ManyThreadsGetAndLaunchAtOnce) {
  constexpr int k_threads = 8, k_rounds = 20, n = 4099;
  kiln::Package package = open_package("saxpy.kiln");
  std::vector<std::unique_ptr<DeviceBuffer<float>>> buffers;
  const std::vector<float> x = ramp<float>(n, 31);
  for (int t = 0; t < k_threads; ++t) buffers.push_back(std::make_unique<DeviceBuffer<float>>(x));
  std::vector<kiln_kernel*> block_sums(k_threads, nullptr);
  std::mutex mutex;
  std::vector<std::string> errors;
  std::latch start(k_threads);
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      try {
        block_sums[t] = package.kernel(t % 2 ? "block_sum<float, 256>" : "block_sum<float, 128>").get();
        for (int round = 0; round < k_rounds; ++round) {
          package.kernel("scale<float>").launch(blocks_for(n, 256), 256, 0, nullptr, buffers[t]->get(), 2.0f, n);
        }
        check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
      } catch (const std::exception& error) {
        const std::lock_guard lock(mutex);
        errors.push_back("thread " + std::to_string(t) + ": " + error.what());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(errors, std::vector<std::string>{});
  for (int t = 2; t < k_threads; ++t) EXPECT_EQ(block_sums[t], block_sums[t % 2]) << "thread " << t;
  std::vector<float> want(x);
  for (float& v : want) v *= static_cast<float>(1 << k_rounds);
  for (int t = 0; t < k_threads; ++t) EXPECT_EQ(buffers[t]->download(), want) << "thread " << t;
}

}  // namespace
}  // namespace kiln::gpu_test
