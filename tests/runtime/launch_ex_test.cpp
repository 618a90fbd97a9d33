// kiln_kernel_launch_ex and Kernel::launch(LaunchConfig, ...): the attributes that reach
// cuLaunchKernelEx, the checks it shares with kiln_kernel_launch, the versioned config, and what a
// driver without cuLaunchKernelEx or a failing one reports.
#include "runtime_fixture.hpp"

#include <cstring>

namespace kiln::testing {
namespace {

Bytes launch_package() {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_90"}}};
  spec.kernels = {KernelSpec("saxpy", "ops.cu", {4, 4, 8, 8}), KernelSpec("scan<int>", "ops.cu", {8}).with_lowered("_Z4scanIiEvPT_")};
  return build_package(spec);
}

kiln_launch_config config_of(kiln_dim3 grid, kiln_dim3 block) {
  kiln_launch_config c{};
  c.struct_size = sizeof c;
  c.grid = grid;
  c.block = block;
  return c;
}

TEST_F(RuntimeTest, LaunchExPassesClusterCooperativeAndPriorityToCuLaunchKernelEx) {
  fake->param_sizes["saxpy"] = {4, 4, 8, 8};
  kiln::Package package = open(launch_package());
  int n = 1000;
  float a = 2.5f;
  float* x = reinterpret_cast<float*>(0x1000);
  void* stream = reinterpret_cast<void*>(0x77);
  package.kernel("saxpy").launch(
      kiln::LaunchConfig{.grid = {4, 2}, .block = 128, .shared_memory_bytes = 1024, .stream = stream,
                         .cluster = {2, 1, 1}, .cooperative = true, .priority = -1}, n, a, x, x);
  ASSERT_EQ(fake->launches().size(), 1u);
  const FakeLaunch launch = fake->launches()[0];
  EXPECT_TRUE(launch.extended);
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.shared_bytes, 1024u);
  EXPECT_EQ(launch.stream, stream);
  ASSERT_EQ(launch.attributes.size(), 3u);
  EXPECT_EQ(launch.attributes[0].id, 4);  // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
  EXPECT_EQ(launch.attributes[0].value.cluster_dim.x, 2u);
  EXPECT_EQ(launch.attributes[0].value.cluster_dim.y, 1u);
  EXPECT_EQ(launch.attributes[0].value.cluster_dim.z, 1u);
  EXPECT_EQ(launch.attributes[1].id, 2);  // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
  EXPECT_EQ(launch.attributes[1].value.cooperative, 1);
  EXPECT_EQ(launch.attributes[2].id, 8);  // CU_LAUNCH_ATTRIBUTE_PRIORITY
  EXPECT_EQ(launch.attributes[2].value.priority, -1);
  ASSERT_EQ(launch.params.size(), 4u);
  float a_seen = 0;
  std::memcpy(&a_seen, launch.params[1].data(), sizeof a_seen);
  EXPECT_EQ(a_seen, 2.5f);
}

TEST_F(RuntimeTest, LaunchExWithNothingSetPassesNoAttribute) {
  kiln::Package package = open(launch_package());
  int* data = nullptr;
  package.kernel("scan<int>").launch(kiln::LaunchConfig{.grid = 8, .block = 64}, data);
  ASSERT_EQ(fake->launches().size(), 1u);
  EXPECT_TRUE(fake->launches()[0].extended);
  EXPECT_TRUE(fake->launches()[0].attributes.empty());
  // A priority of 0 is still a priority asked for.
  package.kernel("scan<int>").launch(kiln::LaunchConfig{.grid = 8, .block = 64, .priority = 0}, data);
  ASSERT_EQ(fake->launches()[1].attributes.size(), 1u);
  EXPECT_EQ(fake->launches()[1].attributes[0].id, 8);
}

TEST_F(RuntimeTest, ABracedGridStillCallsTheClassicLaunch) {
  kiln::Package package = open(launch_package());
  int* data = nullptr;
  package.kernel("scan<int>").launch({4, 2}, 64, 0, nullptr, data);
  ASSERT_EQ(fake->launches().size(), 1u);
  EXPECT_FALSE(fake->launches()[0].extended);
}

TEST_F(RuntimeTest, LaunchExChecksTypedArgumentsAndTheCount) {
  kiln::Package package = open(launch_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  int n = 1;
  double a = 2.5;  // the kernel takes a float
  float* x = nullptr;
  EXPECT_EQ(error_of([&] { saxpy.launch(kiln::LaunchConfig{.grid = 1, .block = 1}, n, a, x, x); }, KILN_STATUS_ARGUMENT_MISMATCH),
            "kernel 'saxpy': argument 1 is 8 bytes but parameter 1 takes 4 (indices from 0)");
  void* args[3] = {&n, &n, &n};
  const kiln_launch_config c = config_of({1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(kiln_kernel_launch_ex(saxpy.get(), &c, args, 3), KILN_STATUS_ARGUMENT_MISMATCH);
  EXPECT_STREQ(kiln_last_error(), "app.kiln: kernel 'saxpy' takes 4 arguments, 3 given");
  EXPECT_EQ(kiln_kernel_launch_ex(saxpy.get(), &c, nullptr, 4), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "app.kiln: kernel 'saxpy': args is NULL but arg_count is 4");
  EXPECT_TRUE(fake->launches().empty());
}

TEST_F(RuntimeTest, LaunchExRefusesNullArgumentsNamingTheKernel) {
  kiln::Package package = open(launch_package());
  kiln_kernel* scan = package.kernel("scan<int>").get();
  const kiln_launch_config c = config_of({1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(kiln_kernel_launch_ex(nullptr, &c, nullptr, 0), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_launch_ex: kernel is NULL");
  EXPECT_EQ(kiln_kernel_launch_ex(scan, nullptr, nullptr, 0), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_kernel_launch_ex: config is NULL (app.kiln: kernel 'scan<int>')");
  EXPECT_STREQ(kiln_package_last_error(package.get()), kiln_last_error());
  EXPECT_TRUE(fake->launches().empty());
}

// struct_size: below the first version is refused; an older caller's shorter struct and a newer
// caller's longer one with nothing set past this runtime's fields launch; a field set past them is
// refused rather than ignored.
TEST_F(RuntimeTest, LaunchExReadsTheConfigByItsStructSize) {
  kiln::Package package = open(launch_package());
  kiln_kernel* scan = package.kernel("scan<int>").get();
  int* data = nullptr;
  void* args[] = {&data};
  kiln_launch_config c = config_of({1, 1, 1}, {32, 1, 1});
  c.struct_size = offsetof(kiln_launch_config, priority);  // cuts the last field off
  EXPECT_EQ(kiln_kernel_launch_ex(scan, &c, args, 1), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(kiln_last_error()),
            "kiln_kernel_launch_ex: config->struct_size is 68, below the 72 bytes of the first kiln_launch_config; "
            "set it to sizeof(kiln_launch_config) (app.kiln: kernel 'scan<int>')");

  struct Newer {
    kiln_launch_config known;
    std::uint64_t future_field;
  } newer{config_of({1, 1, 1}, {32, 1, 1}), 0};
  newer.known.struct_size = sizeof newer;
  EXPECT_EQ(kiln_kernel_launch_ex(scan, &newer.known, args, 1), KILN_STATUS_SUCCESS) << kiln_last_error();
  newer.future_field = 1;
  EXPECT_EQ(kiln_kernel_launch_ex(scan, &newer.known, args, 1), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(kiln_last_error()),
            "kiln_kernel_launch_ex: config sets fields past the 72 bytes this runtime (" +
                std::to_string(KILN_VERSION) + ") knows; it cannot apply them (app.kiln: kernel 'scan<int>')");
  EXPECT_EQ(fake->launches().size(), 1u);
}

TEST_F(RuntimeTest, LaunchExRefusesAClusterWithSomeDimensionsZero) {
  kiln::Package package = open(launch_package());
  int* data = nullptr;
  EXPECT_EQ(error_of([&] { package.kernel("scan<int>").launch(kiln::LaunchConfig{.grid = 4, .block = 64, .cluster = {2, 0, 1}}, data); },
                     KILN_STATUS_INVALID_ARGUMENT),
            "kiln_kernel_launch_ex: cluster is {2, 0, 1}: either all three are 0 (no cluster) or all are at least 1 "
            "(app.kiln: kernel 'scan<int>')");
  EXPECT_TRUE(fake->launches().empty());
}

TEST_F(RuntimeTest, LaunchExRaisesTheSharedMemoryLimitAbove48KiB) {
  fake->devices = {FakeDevice{90, false, 101376}};
  kiln::Package package = open(launch_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  int* data = nullptr;
  scan.launch(kiln::LaunchConfig{.grid = 1, .block = 1, .shared_memory_bytes = 64 * 1024}, data);
  ASSERT_EQ(fake->attribute_calls().size(), 1u);
  EXPECT_EQ(fake->attribute_calls()[0].attribute, 8);  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  EXPECT_EQ(fake->attribute_calls()[0].value, 65536);
  ASSERT_EQ(fake->launches().size(), 1u);
  EXPECT_EQ(fake->launches()[0].shared_bytes, 65536u);
  EXPECT_EQ(error_of([&] { scan.launch(kiln::LaunchConfig{.grid = 1, .block = 1, .shared_memory_bytes = 101377}, data); }, KILN_STATUS_ARGUMENT_MISMATCH),
            "app.kiln: kernel 'scan<int>' asks for 101377 bytes of dynamic shared memory, but device 0 allows at "
            "most 101376 per block");
  EXPECT_EQ(fake->launches().size(), 1u);
}

TEST_F(RuntimeTest, ADriverWithoutCuLaunchKernelExFailsOnlyLaunchEx) {
  fake->has_launch_ex = false;
  kiln::Package package = open(launch_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  int* data = nullptr;
  EXPECT_EQ(error_of([&] { scan.launch(kiln::LaunchConfig{.grid = 1, .block = 1}, data); }, KILN_STATUS_DRIVER_ERROR),
            "app.kiln: kernel 'scan<int>': launch on device 0 failed: cuLaunchKernelEx: "
            "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER (36); this driver does not provide cuLaunchKernelEx: install a "
            "newer NVIDIA driver");
  scan.launch(1, 1, 0, nullptr, data);  // cuLaunchKernel is still there
  EXPECT_EQ(fake->launches().size(), 1u);
}

TEST_F(RuntimeTest, ALaunchExTheDriverRefusesNamesTheKernel) {
  fake->launch_result = 2;
  kiln::Package package = open(launch_package());
  int* data = nullptr;
  EXPECT_EQ(error_of([&] { package.kernel("scan<int>").launch(kiln::LaunchConfig{.grid = 1, .block = 1}, data); },
                     KILN_STATUS_DRIVER_ERROR),
            "app.kiln: kernel 'scan<int>': launch on device 0 failed: cuLaunchKernelEx: CUDA_ERROR_OUT_OF_MEMORY (2)");
}

}  // namespace
}  // namespace kiln::testing
