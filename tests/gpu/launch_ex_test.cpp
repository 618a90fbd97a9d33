// Launch attributes on a real device (a cluster, a cooperative grid, a priority), kernel attributes,
// occupancy, and kernels found by kiln::name_of in a package the device compiler built
// (tests/fixtures/projects/gpu/kernels/launch.cu).
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace fx {
enum class Mode : short { slow = -1, fast = 1 };
enum Plain { zero, one };
struct Pair {
  int a, b;
};
}  // namespace fx

namespace kiln::gpu_test {
namespace {

int device_attribute(cudaDeviceAttr attribute, const char* what) {
  int value = 0;
  check_cuda(cudaDeviceGetAttribute(&value, attribute, 0), what);
  return value;
}

// 4 blocks in clusters of 2: each block reports its rank in the cluster (0, 1, 0, 1) and the
// cluster's size (2), which only a launch with the cluster attribute gives.
TEST(LaunchEx, ClusterOfTwoBlocks) {
  const int arch = device_arch();
  if (arch < 90) GTEST_SKIP() << "thread block clusters need compute capability 9.0; device 0 is " << arch / 10 << "." << arch % 10;
  kiln::Package package = open_package("gpu.kiln");
  DeviceBuffer<int> out(8);
  package.kernel("cluster_ranks").launch(kiln::LaunchConfig{.grid = 4, .block = 32, .cluster = {2, 1, 1}}, out.get());
  synchronize();
  EXPECT_EQ(out.download(), (std::vector<int>{0, 2, 1, 2, 0, 2, 1, 2}));
  // Without the attribute every block is a cluster of one.
  package.kernel("cluster_ranks").launch(kiln::LaunchConfig{.grid = 4, .block = 32}, out.get());
  synchronize();
  EXPECT_EQ(out.download(), (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
}

// One block per multiprocessor (resident at once, as occupancy confirms), synchronized across the
// grid: block 0's sum of every block's slot is right only if grid.sync() waited for all of them.
TEST(LaunchEx, CooperativeGridSynchronizes) {
  if (!device_attribute(cudaDevAttrCooperativeLaunch, "cooperative launch support")) {
    GTEST_SKIP() << "device 0 does not support cooperative launches";
  }
  kiln::Package package = open_package("gpu.kiln");
  const kiln::Kernel kernel = package.kernel("grid_sync_sum");
  ASSERT_GE(kernel.max_active_blocks(128), 1);
  const int blocks = device_attribute(cudaDevAttrMultiProcessorCount, "multiprocessor count");
  DeviceBuffer<int> slots(static_cast<std::size_t>(blocks)), out(2);
  kernel.launch(kiln::LaunchConfig{.grid = static_cast<std::uint32_t>(blocks), .block = 128, .cooperative = true},
                slots.get(), out.get());
  synchronize();
  EXPECT_EQ(out.download(), (std::vector<int>{blocks * (blocks + 1) / 2, 1}));
}

TEST(LaunchEx, PriorityIsAccepted) {
  int least = 0, greatest = 0;
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priority range");
  kiln::Package package = open_package("gpu.kiln");
  DeviceBuffer<int> out(1);
  package.kernel("cuda_arch").launch(kiln::LaunchConfig{.grid = 1, .block = 1, .priority = greatest}, out.get());
  synchronize();
  EXPECT_EQ(out.download(), std::vector<int>{device_arch() * 10});
}

TEST(LaunchEx, DynamicSharedMemoryOf64KiB) {
  constexpr int n = 16384;  // ints: 64 KiB
  const int optin = device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, "shared memory limit");
  if (optin < n * 4) GTEST_SKIP() << "the device allows only " << optin << " bytes of shared memory per block";
  kiln::Package package = open_package("gpu.kiln");
  std::vector<int> in(n);
  std::iota(in.begin(), in.end(), 0);
  DeviceBuffer<int> din(in), dout(n);
  package.kernel("reverse_in_shared")
      .launch(kiln::LaunchConfig{.grid = 1, .block = 1024, .shared_memory_bytes = n * 4},
              static_cast<const int*>(din.get()), dout.get(), n);
  synchronize();
  EXPECT_EQ(dout.download(), std::vector<int>(in.rbegin(), in.rend()));
  EXPECT_GE(package.kernel("reverse_in_shared").attribute(kiln::KernelAttribute::max_dynamic_shared_bytes), n * 4);
}

TEST(KernelQueries, AttributesAndOccupancy) {
  kiln::Package package = open_package("gpu.kiln");
  const kiln::Kernel kernel = package.kernel("grid_sync_sum");
  EXPECT_GT(kernel.attribute(kiln::KernelAttribute::registers), 0);
  const int max_threads = kernel.attribute(kiln::KernelAttribute::max_threads_per_block);
  EXPECT_GT(max_threads, 0);
  EXPECT_LE(max_threads, 1024);
  EXPECT_EQ(kernel.attribute(kiln::KernelAttribute::binary_version), device_arch());  // its exact cubin
  EXPECT_EQ(kernel.attribute(kiln::KernelAttribute::static_shared_bytes), 0);
  EXPECT_GE(kernel.max_active_blocks(256), 1);
  EXPECT_GE(kernel.max_active_blocks(256, 1024), 1);
  const kiln::BlockSizeSuggestion suggestion = kernel.suggest_block_size();
  EXPECT_GT(suggestion.block_size, 0);
  EXPECT_LE(suggestion.block_size, 1024);
  EXPECT_GE(suggestion.min_grid_size, 1);
  EXPECT_LE(kernel.suggest_block_size(0, 64).block_size, 64);
}

// The device compiler's manglings (NVRTC here) give the canonical names; name_of must hit them, and
// the kernel it finds must be the instantiation asked for.
TEST(NameOfOnDevice, FindsAndLaunchesEachInstantiation) {
  kiln::Package package = open_package("gpu.kiln");
  const std::string values = kiln::name_of<fx::Mode::fast, 'J', 256u>("values_kernel");
  EXPECT_EQ(values, "values_kernel<(fx::Mode)1, (char)74, 256u>");
  DeviceBuffer<int> out(3);
  package.kernel(values).launch(1, 1, 0, nullptr, out.get());
  synchronize();
  EXPECT_EQ(out.download(), (std::vector<int>{1, 74, 256}));
  package.kernel(kiln::name_of<fx::Mode::slow, static_cast<char>(-1), 7u>("values_kernel")).launch(1, 1, 0, nullptr, out.get());
  synchronize();
  EXPECT_EQ(out.download(), (std::vector<int>{-1, -1, 7}));
  package.kernel(kiln::name_of<fx::one, true, -5l>("plain_kernel")).launch(1, 1, 0, nullptr, out.get());
  synchronize();
  EXPECT_EQ(out.download(), (std::vector<int>{1, 1, -5}));
  for (const std::string& name : {kiln::name_of<const volatile float, kiln::value<-1>>("type_kernel"),
                                  kiln::name_of<const float*, kiln::value<2>>("type_kernel"),
                                  kiln::name_of<fx::Pair, kiln::value<3>>("type_kernel")}) {
    EXPECT_NO_THROW(package.find_kernel(name)) << name;
  }
  package.kernel(kiln::name_of<fx::Pair, kiln::value<3>>("type_kernel")).launch(1, 1, 0, nullptr, out.get());
  synchronize();
  EXPECT_EQ(out.download()[0], static_cast<int>(sizeof(fx::Pair)));
  EXPECT_EQ(out.download()[1], 3);
}

}  // namespace
}  // namespace kiln::gpu_test
