// Finding kernels (names, aliases, nearest names), their parameters, launches (argument checks,
// typed C++ launches, dynamic shared memory) and variables.
#include "runtime_fixture.hpp"

#include <cstring>

namespace kiln::testing {
namespace {

using ::testing::HasSubstr;

Bytes kernels_package() {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_80", "sm_90"}}};
  spec.kernels = {
      KernelSpec("saxpy", "ops.cu", {4, 4, 8, 8}),
      KernelSpec("block_sum<float, 256>", "ops.cu", {8, 8, 4})
          .with_lowered("_Z9block_sumIfLi256EEvPKT_PS0_i")
          .with_aliases({"red::block_sum<float,256>"}),
      KernelSpec("block_sum<float, 128>", "ops.cu", {8, 8, 4}).with_lowered("_Z9block_sumIfLi128EEvPKT_PS0_i"),
      KernelSpec("block_sum<double, 256>", "ops.cu", {8, 8, 4}).with_lowered("_Z9block_sumIdLi256EEvPKT_PS0_i"),
      KernelSpec("scan<int>", "ops.cu", {8}).with_lowered("_Z4scanIiEvPT_"),
      KernelSpec("opaque", "ops.cu").without_params(),
  };
  spec.variables = {format::PackageVariable{"ns::table", "_ZN2ns5tableE", "ops.cu", format::VariableKind::device, 1024},
                    format::PackageVariable{"scale", "scale", "ops.cu", format::VariableKind::constant, 4}};
  return build_package(spec);
}

TEST_F(RuntimeTest, KernelsAreFoundByEveryRecordedSpelling) {
  kiln::Package package = open(kernels_package());
  const kiln::Kernel k = package.kernel("block_sum<float, 256>");
  EXPECT_EQ(k.name(), "block_sum<float, 256>");
  EXPECT_EQ(package.kernel("block_sum< float,256 >").get(), k.get());
  EXPECT_EQ(package.kernel("red::block_sum<float, 256>").get(), k.get());
  EXPECT_EQ(package.kernel("_Z9block_sumIfLi256EEvPKT_PS0_i").get(), k.get());
  EXPECT_EQ(package.kernel_names().size(), 6u);
}

TEST_F(RuntimeTest, AnUnknownKernelNamesTheNearestThree) {
  kiln::Package package = open(kernels_package());
  const std::string message = error_of([&] { package.kernel("block_sum<float, 255>"); }, KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_EQ(message, "no kernel 'block_sum<float, 255>' in app.kiln; nearest: block_sum<float, 256>, "
                     "block_sum<float, 128>, block_sum<double, 256>");
  EXPECT_TRUE(fake->loads().empty());
}

TEST_F(RuntimeTest, ParamsAreReportedAndMayBeUnknown) {
  kiln::Package package = open(kernels_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  const std::vector<kiln::Param> params = saxpy.params();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[1].size, 4u);
  EXPECT_EQ(params[2].offset, 8u);
  // A capacity below the count fills what fits and still reports the count.
  std::size_t count = 0, sizes[2] = {0, 0};
  ASSERT_EQ(kiln_kernel_params(saxpy.get(), &count, sizes, nullptr, 2), KILN_STATUS_SUCCESS);
  EXPECT_EQ(count, 4u);
  EXPECT_EQ(sizes[0], 4u);

  const kiln::Kernel opaque = package.kernel("opaque");
  EXPECT_FALSE(opaque.params_known());
  EXPECT_TRUE(opaque.params().empty());
  ASSERT_EQ(kiln_kernel_params(opaque.get(), &count, nullptr, nullptr, 0), KILN_STATUS_SUCCESS);
  EXPECT_EQ(count, KILN_PARAMS_UNKNOWN);
  int anything = 1;
  opaque.launch(1, 1, 0, nullptr, anything, anything);  // not checkable: passed through
  EXPECT_EQ(fake->launches().size(), 1u);
}

TEST_F(RuntimeTest, TypedLaunchPassesArgumentsAndShape) {
  fake->param_sizes["saxpy"] = {4, 4, 8, 8};
  kiln::Package package = open(kernels_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  int n = 1000;
  float a = 2.5f;
  float* x = reinterpret_cast<float*>(0x1000);
  float* y = reinterpret_cast<float*>(0x2000);
  void* stream = reinterpret_cast<void*>(0x77);
  saxpy.launch({4, 2}, 256, 1024, stream, n, a, x, y);
  ASSERT_EQ(fake->launches().size(), 1u);
  const FakeLaunch launch = fake->launches()[0];
  EXPECT_EQ(launch.kernel, "saxpy");
  EXPECT_EQ(launch.grid[0], 4u);
  EXPECT_EQ(launch.grid[1], 2u);
  EXPECT_EQ(launch.grid[2], 1u);
  EXPECT_EQ(launch.block[0], 256u);
  EXPECT_EQ(launch.shared_bytes, 1024u);
  EXPECT_EQ(launch.stream, stream);
  ASSERT_EQ(launch.params.size(), 4u);
  float a_seen = 0;
  float* y_seen = nullptr;
  std::memcpy(&a_seen, launch.params[1].data(), sizeof a_seen);
  std::memcpy(&y_seen, launch.params[3].data(), sizeof y_seen);
  EXPECT_EQ(a_seen, 2.5f);
  EXPECT_EQ(y_seen, y);
}

TEST_F(RuntimeTest, TypedLaunchRefusesAWrongSize) {
  kiln::Package package = open(kernels_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  int n = 1;
  double a = 2.5;  // the kernel takes a float
  float* x = nullptr;
  const std::string message =
      error_of([&] { saxpy.launch(1, 1, 0, nullptr, n, a, x, x); }, KILN_STATUS_ARGUMENT_MISMATCH);
  EXPECT_EQ(message, "kernel 'saxpy': argument 1 is 8 bytes but parameter 1 takes 4 (indices from 0)");
  const std::string count = error_of([&] { saxpy.launch(1, 1, 0, nullptr, n, x); }, KILN_STATUS_ARGUMENT_MISMATCH);
  EXPECT_EQ(count, "kernel 'saxpy' takes 4 arguments, 2 given");
  EXPECT_TRUE(fake->launches().empty());
}

TEST_F(RuntimeTest, RawLaunchRefusesAWrongArgumentCount) {
  kiln::Package package = open(kernels_package());
  kiln_kernel* saxpy = package.kernel("saxpy").get();
  int n = 1;
  void* args[3] = {&n, &n, &n};
  EXPECT_EQ(kiln_kernel_launch(saxpy, {1, 1, 1}, {1, 1, 1}, 0, nullptr, args, 3), KILN_STATUS_ARGUMENT_MISMATCH);
  EXPECT_STREQ(kiln_last_error(), "app.kiln: kernel 'saxpy' takes 4 arguments, 3 given");
  EXPECT_STREQ(kiln_package_last_error(package.get()), "app.kiln: kernel 'saxpy' takes 4 arguments, 3 given");
  EXPECT_EQ(kiln_kernel_launch(saxpy, {1, 1, 1}, {1, 1, 1}, 0, nullptr, nullptr, 4), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(fake->launches().empty());
}

TEST_F(RuntimeTest, DynamicSharedMemoryAbove48KiBRaisesTheLimitOncePerSize) {
  fake->devices = {FakeDevice{90, false, 101376}, FakeDevice{90, false, 101376}};
  fake->make_current(0);
  kiln::Package package = open(kernels_package());
  const kiln::Kernel scan = package.kernel("scan<int>");
  int* data = nullptr;
  scan.launch(1, 1, 64 * 1024, nullptr, data);
  scan.launch(1, 1, 64 * 1024, nullptr, data);
  scan.launch(1, 1, 32 * 1024, nullptr, data);
  ASSERT_EQ(fake->attribute_calls().size(), 1u);
  EXPECT_EQ(fake->attribute_calls()[0].attribute, 8);  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  EXPECT_EQ(fake->attribute_calls()[0].value, 65536);
  EXPECT_EQ(fake->attribute_calls()[0].kernel, "_Z4scanIiEvPT_");
  EXPECT_EQ(fake->attribute_calls()[0].device, 0);
  scan.launch(1, 1, 80 * 1024, nullptr, data);  // more than before: raised again
  EXPECT_EQ(fake->attribute_calls().size(), 2u);
  fake->make_current(1);  // the limit is per device
  scan.launch(1, 1, 64 * 1024, nullptr, data);
  ASSERT_EQ(fake->attribute_calls().size(), 3u);
  EXPECT_EQ(fake->attribute_calls()[2].device, 1);
  EXPECT_EQ(fake->launches().size(), 5u);

  const std::string message =
      error_of([&] { scan.launch(1, 1, 101377, nullptr, data); }, KILN_STATUS_ARGUMENT_MISMATCH);
  EXPECT_EQ(message, "app.kiln: kernel 'scan<int>' asks for 101377 bytes of dynamic shared memory, but device 1 "
                     "allows at most 101376 per block");
  EXPECT_EQ(fake->attribute_calls().size(), 3u);
}

TEST_F(RuntimeTest, HandleIsTheCuKernelOfTheCurrentDevice) {
  kiln::Package package = open(kernels_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  void* handle = saxpy.handle();
  EXPECT_NE(handle, nullptr);
  EXPECT_EQ(saxpy.handle(), handle);
}

TEST_F(RuntimeTest, ADriverLaunchFailureNamesTheKernel) {
  fake->launch_result = 2;
  kiln::Package package = open(kernels_package());
  int* data = nullptr;
  const std::string message =
      error_of([&] { package.kernel("scan<int>").launch(1, 1, 0, nullptr, data); }, KILN_STATUS_DRIVER_ERROR);
  EXPECT_EQ(message, "app.kiln: kernel 'scan<int>': launch on device 0 failed: cuLaunchKernel: "
                     "CUDA_ERROR_OUT_OF_MEMORY (2)");
}

TEST_F(RuntimeTest, GlobalsResolveInTheUnitsImage) {
  fake->globals["_ZN2ns5tableE"] = {0xdead0000, 1024};
  kiln::Package package = open(kernels_package());
  const kiln::Global table = package.global("ns::table");
  EXPECT_EQ(table.device_pointer, 0xdead0000u);
  EXPECT_EQ(table.size, 1024u);
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_90")});

  const std::string missing = error_of([&] { package.global("ns::tabel"); }, KILN_STATUS_VARIABLE_NOT_FOUND);
  EXPECT_EQ(missing, "no variable 'ns::tabel' in app.kiln; nearest: ns::table, scale");
  const std::string refused = error_of([&] { package.global("scale"); }, KILN_STATUS_DRIVER_ERROR);
  EXPECT_THAT(refused, HasSubstr("variable 'scale' (scale) is not available in image ops.cu [sm_90]"));
}

}  // namespace
}  // namespace kiln::testing
