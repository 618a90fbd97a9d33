// A __device__ array written and read by the host through kiln_package_get_global, and by kernels.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace kiln::gpu_test {
namespace {

TEST(Globals, HostWritesKernelReadsKernelWritesHostReads) {
  constexpr int n = 256;
  kiln::Package package = open_package("gpu.kiln");
  const kiln::Global table = package.global("table");
  ASSERT_EQ(table.size, n * sizeof(int));
  ASSERT_NE(table.device_pointer, 0u);

  std::vector<int> written(n);
  std::iota(written.begin(), written.end(), -100);
  check_cuda(cudaMemcpy(device_address(table.device_pointer), written.data(), table.size, cudaMemcpyHostToDevice),
             "cudaMemcpy to table");
  DeviceBuffer<int> seen(n);
  package.kernel("read_table").launch(1, n, 0, nullptr, seen.get(), n);
  synchronize();
  EXPECT_EQ(seen.download(), written);

  package.kernel("add_to_table").launch(1, n, 0, nullptr, 7, n);
  synchronize();
  std::vector<int> read_back(n);
  check_cuda(cudaMemcpy(read_back.data(), device_address(table.device_pointer), table.size, cudaMemcpyDeviceToHost),
             "cudaMemcpy from table");
  for (int& v : written) v += 7;
  EXPECT_EQ(read_back, written);
}

// The C interface gives the same address and size, and a NULL size is allowed.
TEST(Globals, CInterfaceAgreesWithCpp) {
  kiln::Package package = open_package("gpu.kiln");
  const kiln::Global table = package.global("table");
  std::uint64_t pointer = 0;
  std::size_t size = 0;
  ASSERT_EQ(kiln_package_get_global(package.get(), "table", &pointer, &size), KILN_STATUS_SUCCESS) << kiln_last_error();
  EXPECT_EQ(pointer, table.device_pointer);
  EXPECT_EQ(size, table.size);
}

}  // namespace
}  // namespace kiln::gpu_test
