// kiln_kernel_attribute, kiln_kernel_max_active_blocks and kiln_kernel_suggest_block_size, and their
// C++ forms: what reaches the driver, on which device, and every error.
#include "runtime_fixture.hpp"

#include <utility>

namespace kiln::testing {
namespace {

Bytes query_package() {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_90"}}};
  spec.kernels = {KernelSpec("scan<int>", "ops.cu", {8}).with_lowered("_Z4scanIiEvPT_")};
  return build_package(spec);
}

// Kiln's attribute numbers are its own; each must reach the driver as its CU_FUNC_ATTRIBUTE_*.
TEST_F(RuntimeTest, EveryKernelAttributeMapsToItsCudaAttribute) {
  const std::pair<kiln::KernelAttribute, int> expected[] = {
      {kiln::KernelAttribute::max_threads_per_block, 0}, {kiln::KernelAttribute::registers, 4},
      {kiln::KernelAttribute::static_shared_bytes, 1},   {kiln::KernelAttribute::const_bytes, 2},
      {kiln::KernelAttribute::local_bytes, 3},           {kiln::KernelAttribute::max_dynamic_shared_bytes, 8},
      {kiln::KernelAttribute::ptx_version, 5},           {kiln::KernelAttribute::binary_version, 6},
      {kiln::KernelAttribute::cache_mode_ca, 7},         {kiln::KernelAttribute::preferred_shared_carveout, 9},
      {kiln::KernelAttribute::cluster_size_must_be_set, 10},
      {kiln::KernelAttribute::required_cluster_width, 11},
      {kiln::KernelAttribute::required_cluster_height, 12},
      {kiln::KernelAttribute::required_cluster_depth, 13},
      {kiln::KernelAttribute::non_portable_cluster_size_allowed, 14},
      {kiln::KernelAttribute::cluster_scheduling_policy, 15},
  };
  for (int cu = 0; cu <= 15; ++cu) fake->kernel_attributes[cu] = 100 + cu;
  kiln::Package package = open(query_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  for (const auto& [kind, cu] : expected) {
    EXPECT_EQ(scan.attribute(kind), 100 + cu) << "kiln_kernel_attribute_kind " << static_cast<int>(kind);
  }
  ASSERT_EQ(fake->queries().size(), std::size(expected));
  EXPECT_EQ(fake->queries()[1].call, "cuKernelGetAttribute");
  EXPECT_EQ(fake->queries()[1].kernel, "_Z4scanIiEvPT_");
  EXPECT_EQ(fake->queries()[1].attribute, 4);
}

TEST_F(RuntimeTest, KernelAttributesAreReadForTheCurrentDevice) {
  fake->devices = {FakeDevice{}, FakeDevice{}};
  fake->make_current(1);
  kiln::Package package = open(query_package());
  EXPECT_EQ(package.kernel("scan<int>").attribute(kiln::KernelAttribute::registers), 40);
  ASSERT_EQ(fake->queries().size(), 1u);
  EXPECT_EQ(fake->queries()[0].device, 1);
}

TEST_F(RuntimeTest, AnUnknownAttributeOrANullArgumentIsRefused) {
  kiln::Package package = open(query_package());
  kiln_kernel* scan = package.kernel("scan<int>").get();
  int value = -5;
  EXPECT_EQ(kiln_kernel_attribute(scan, static_cast<kiln_kernel_attribute_kind>(17), &value),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(value, 0);
  EXPECT_STREQ(kiln_last_error(),
               "app.kiln: kernel 'scan<int>': no kernel attribute 17 (kiln_kernel_attribute_kind runs from 1 to 16)");
  EXPECT_EQ(kiln_kernel_attribute(scan, static_cast<kiln_kernel_attribute_kind>(0), &value),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_kernel_attribute(nullptr, KILN_KERNEL_ATTRIBUTE_REGISTERS, &value), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_attribute: kernel is NULL");
  EXPECT_EQ(kiln_kernel_attribute(scan, KILN_KERNEL_ATTRIBUTE_REGISTERS, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_attribute: value is NULL (app.kiln: kernel 'scan<int>')");
  EXPECT_TRUE(fake->queries().empty());
}

TEST_F(RuntimeTest, AnAttributeTheDriverRefusesNamesTheKernelAndTheAttribute) {
  fake->query_result = 1;
  kiln::Package package = open(query_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  EXPECT_EQ(error_of([&] { scan.attribute(kiln::KernelAttribute::registers); }, KILN_STATUS_DRIVER_ERROR),
            "app.kiln: kernel 'scan<int>': reading its registers on device 0 failed: cuKernelGetAttribute: "
            "CUDA_ERROR_INVALID_VALUE (1)");
  fake->query_result = driver::k_cuda_error_call_requires_newer_driver;  // a driver without the entry point
  EXPECT_EQ(error_of([&] { scan.attribute(kiln::KernelAttribute::ptx_version); }, KILN_STATUS_DRIVER_ERROR),
            "app.kiln: kernel 'scan<int>': reading its PTX version on device 0 failed: cuKernelGetAttribute: "
            "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER (36); this driver does not provide cuKernelGetAttribute: "
            "install a newer NVIDIA driver");
}

TEST_F(RuntimeTest, MaxActiveBlocksAsksTheDriverOnTheLoadedFunction) {
  kiln::Package package = open(query_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  EXPECT_EQ(scan.max_active_blocks(256, 1024), 6);
  ASSERT_EQ(fake->queries().size(), 1u);
  const FakeQuery query = fake->queries()[0];
  EXPECT_EQ(query.call, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  EXPECT_EQ(query.kernel, "_Z4scanIiEvPT_");
  EXPECT_EQ(query.block_size, 256);
  EXPECT_EQ(query.shared_bytes, 1024u);
  EXPECT_GE(fake->function_loads(), 1);  // through cuKernelGetFunction, in the current context
  EXPECT_TRUE(fake->attribute_calls().empty());
}

// Above 48 KiB the answer is what a Kiln launch of that size gets, so the limit is raised as the
// launch would raise it; above the device's opt-in limit nothing is raised and the driver answers.
TEST_F(RuntimeTest, OccupancyAbove48KiBRaisesTheLimitAsALaunchWould) {
  fake->devices = {FakeDevice{90, false, 101376}};
  kiln::Package package = open(query_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  scan.max_active_blocks(128, 64 * 1024);
  ASSERT_EQ(fake->attribute_calls().size(), 1u);
  EXPECT_EQ(fake->attribute_calls()[0].value, 65536);
  scan.suggest_block_size(80 * 1024);
  ASSERT_EQ(fake->attribute_calls().size(), 2u);
  EXPECT_EQ(fake->attribute_calls()[1].value, 80 * 1024);
  scan.max_active_blocks(128, 200 * 1024);
  EXPECT_EQ(fake->attribute_calls().size(), 2u);
  EXPECT_EQ(fake->queries().size(), 3u);
}

TEST_F(RuntimeTest, SuggestBlockSizePassesTheLimitAndReturnsBoth) {
  kiln::Package package = open(query_package());
  const kiln::BlockSizeSuggestion suggestion = package.kernel("scan<int>").suggest_block_size(2048, 512);
  EXPECT_EQ(suggestion.min_grid_size, 264);
  EXPECT_EQ(suggestion.block_size, 512);
  ASSERT_EQ(fake->queries().size(), 1u);
  EXPECT_EQ(fake->queries()[0].call, "cuOccupancyMaxPotentialBlockSize");
  EXPECT_EQ(fake->queries()[0].block_size, 512);
  EXPECT_EQ(fake->queries()[0].shared_bytes, 2048u);
}

TEST_F(RuntimeTest, OccupancyRefusesBadSizesAndNullArguments) {
  kiln::Package package = open(query_package());
  kiln_kernel* scan = package.kernel("scan<int>").get();
  int blocks = -1, grid = -1, block = -1;
  EXPECT_EQ(kiln_kernel_max_active_blocks(scan, 0, 0, &blocks), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(blocks, 0);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_max_active_blocks: block_size is 0, below 1 (app.kiln: kernel 'scan<int>')");
  EXPECT_EQ(kiln_kernel_max_active_blocks(nullptr, 32, 0, &blocks), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_max_active_blocks: kernel is NULL");
  EXPECT_EQ(kiln_kernel_max_active_blocks(scan, 32, 0, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_max_active_blocks: blocks_per_sm is NULL (app.kiln: kernel 'scan<int>')");
  EXPECT_EQ(kiln_kernel_suggest_block_size(scan, 0, -1, &grid, &block), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(grid, 0);
  EXPECT_EQ(block, 0);
  EXPECT_STREQ(kiln_last_error(),
               "kiln_kernel_suggest_block_size: block_size_limit is -1, below 0 (0: no limit) (app.kiln: kernel "
               "'scan<int>')");
  EXPECT_EQ(kiln_kernel_suggest_block_size(nullptr, 0, 0, &grid, &block), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_suggest_block_size: kernel is NULL");
  EXPECT_EQ(kiln_kernel_suggest_block_size(scan, 0, 0, nullptr, &block), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_suggest_block_size: min_grid_size is NULL (app.kiln: kernel 'scan<int>')");
  EXPECT_EQ(kiln_kernel_suggest_block_size(scan, 0, 0, &grid, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_suggest_block_size: block_size is NULL (app.kiln: kernel 'scan<int>')");
  EXPECT_TRUE(fake->queries().empty());
}

TEST_F(RuntimeTest, OccupancyTheDriverRefusesNamesTheKernelAndTheCall) {
  fake->query_result = 1;
  kiln::Package package = open(query_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  EXPECT_EQ(error_of([&] { scan.max_active_blocks(256, 1024); }, KILN_STATUS_DRIVER_ERROR),
            "app.kiln: kernel 'scan<int>': occupancy of blocks of 256 threads with 1024 bytes of dynamic shared "
            "memory on device 0 failed: cuOccupancyMaxActiveBlocksPerMultiprocessor: CUDA_ERROR_INVALID_VALUE (1)");
  EXPECT_EQ(error_of([&] { scan.suggest_block_size(); }, KILN_STATUS_DRIVER_ERROR),
            "app.kiln: kernel 'scan<int>': suggesting a block size with 0 bytes of dynamic shared memory on device "
            "0 failed: cuOccupancyMaxPotentialBlockSize: CUDA_ERROR_INVALID_VALUE (1)");
}

}  // namespace
}  // namespace kiln::testing
