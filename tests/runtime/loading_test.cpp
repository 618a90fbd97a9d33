// Loading images: one library per (unit, image), shared by the unit's kernels and by devices of the
// same architecture; failures that name the image; preload; the KILN_LOG line; unloading.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include <algorithm>
#include <cstring>
#include <regex>

namespace kiln::testing {
namespace {

using ::testing::HasSubstr;

// Units a.cu and b.cu, each built for sm_80 and sm_90; a.cu holds ka1 and ka2, b.cu holds kb.
Bytes two_unit_package(bool compressible = false) {
  PackageSpec spec;
  spec.units = {{"a.cu", {"sm_80", "sm_90"}}, {"b.cu", {"sm_80", "sm_90"}}};
  spec.kernels = {KernelSpec("ka1", "a.cu", {8}), KernelSpec("ka2", "a.cu", {8}), KernelSpec("kb", "b.cu")};
  spec.compressible = compressible;
  return build_package(spec);
}

TEST_F(RuntimeTest, OneLibraryPerUnitImageSharedByKernelsAndSameArchDevices) {
  fake->devices = {FakeDevice{90}, FakeDevice{90}, FakeDevice{80}};
  fake->make_current(0);
  kiln::Package package = open(two_unit_package());
  const kiln::Kernel ka1 = package.kernel("ka1");
  const kiln::Kernel ka2 = package.kernel("ka2");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("a.cu", "sm_90")});
  package.kernel("kb");
  EXPECT_EQ(fake->loads().size(), 2u);

  fake->make_current(1);  // same architecture: same image, same library
  EXPECT_EQ(package.kernel("ka1").get(), ka1.get());
  std::uint64_t x = 7;
  ka2.launch(1, 1, 0, nullptr, x);
  EXPECT_EQ(fake->loads().size(), 2u);
  ASSERT_EQ(fake->launches().size(), 1u);
  EXPECT_EQ(fake->launches()[0].device, 1);
  EXPECT_EQ(fake->launches()[0].image, image_text("a.cu", "sm_90"));

  fake->make_current(2);  // another architecture: its own image
  ka1.launch(1, 1, 0, nullptr, x);
  EXPECT_EQ(fake->loads().back(), image_text("a.cu", "sm_80"));
  EXPECT_EQ(fake->launches().back().image, image_text("a.cu", "sm_80"));
  EXPECT_EQ(fake->launches().back().device, 2);
  EXPECT_EQ(fake->loads().size(), 3u);

  package = kiln::Package();  // destroy: every library is unloaded
  std::vector<std::string> unloads = fake->unloads(), loads = fake->loads();
  std::sort(unloads.begin(), unloads.end());
  std::sort(loads.begin(), loads.end());
  EXPECT_EQ(unloads, loads);
}

TEST_F(RuntimeTest, WithoutAContextDeviceZerosPrimaryContextIsMadeCurrent) {
  fake->devices = {FakeDevice{80}, FakeDevice{90}};
  kiln::Package package = open(two_unit_package());
  package.kernel("ka1");
  EXPECT_EQ(fake->primary_retains(), 1);
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("a.cu", "sm_80")});
  package.kernel("ka2");  // the context is current now: not retained again
  EXPECT_EQ(fake->primary_retains(), 1);
}

TEST_F(RuntimeTest, CompressedImagesAreDecodedBeforeLoading) {
  kiln::Package package = open(two_unit_package(/*compressible=*/true));
  package.kernel("kb");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("b.cu", "sm_90")});
}

TEST_F(RuntimeTest, ALoadFailureNamesTheImageTheErrorAndTheJitLog) {
  fake->devices = {FakeDevice{120}};
  fake->load_failures[image_text("ops.cu", "compute_80")] = {218, "ptxas application ptx input, line 9; error\n"};
  kiln::Package package = open(single_kernel_package({"sm_90", "compute_80"}));
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_DRIVER_ERROR);
  EXPECT_THAT(message, HasSubstr("app.kiln: loading ops.cu [compute_80] for k on device 0 (compute capability 12.0)"));
  EXPECT_THAT(message, HasSubstr("CUDA_ERROR_INVALID_PTX (218)"));
  EXPECT_THAT(message, HasSubstr("JIT log:\nptxas application ptx input, line 9; error"));
  EXPECT_EQ(kiln_package_last_error(package.get()), message);

  fake->load_failures.clear();  // failures are not cached: the next request loads
  package.kernel("k");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "compute_80")});
}

// Only PTX goes through the JIT: a cubin is loaded without options, as a bare cuLibraryLoadData is.
TEST_F(RuntimeTest, OnlyPtxIsGivenAJitLogBuffer) {
  fake->devices = {FakeDevice{120}};
  kiln::Package cubin = open(single_kernel_package({"sm_120"}));
  cubin.kernel("k");
  kiln::Package ptx = open(single_kernel_package({"compute_80"}));
  ptx.kernel("k");
  EXPECT_EQ(fake->log_buffer_given, (std::map<std::string, bool>{{image_text("ops.cu", "sm_120"), false},
                                                                 {image_text("ops.cu", "compute_80"), true}}));
}

TEST_F(RuntimeTest, AnImageThatLoadsButDoesNotResolveIsRefused) {
  // cuLibraryLoadData succeeds for an image the device cannot run; cuLibraryGetKernel tells.
  fake->unusable_images[image_text("ops.cu", "sm_90")] = 209;
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_THAT(message, HasSubstr("app.kiln: kernel 'k' (k) does not resolve in image ops.cu [sm_90] loaded for "
                                 "device 0 (compute capability 9.0): cuLibraryGetKernel: "
                                 "CUDA_ERROR_NO_BINARY_FOR_GPU (209)"));
}

TEST_F(RuntimeTest, PtxThatFailsToCompileShowsTheJitLogFromItsLoad) {
  // Measured on driver 580: bad PTX loads with CUDA_SUCCESS, the JIT log is filled during the load,
  // and the error (218) comes only from cuLibraryGetKernel.
  fake->devices[0].arch = 120;
  fake->unusable_images[image_text("ops.cu", "compute_80")] = 218;
  fake->load_logs[image_text("ops.cu", "compute_80")] = "ptxas application ptx input, line 9; error   : Unknown\n";
  kiln::Package package = open(single_kernel_package({"compute_80"}));
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_THAT(message, HasSubstr("cuLibraryGetKernel: CUDA_ERROR_INVALID_PTX (218)\nJIT log:\n"
                                 "ptxas application ptx input, line 9; error   : Unknown"));
}

TEST_F(RuntimeTest, AKernelMissingFromItsImageIsADriverError) {
  fake->missing_kernels = {"k"};
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_DRIVER_ERROR);
  EXPECT_THAT(message, HasSubstr("CUDA_ERROR_NOT_FOUND (500)"));
}

TEST_F(RuntimeTest, ACorruptImageIsFoundWhenItIsLoaded) {
  Bytes bytes = single_kernel_package({"sm_80", "sm_90"});
  damage_image(bytes, "ops.cu", "sm_90");
  kiln::Package package = open(bytes);
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_IMAGE_CORRUPT);
  EXPECT_THAT(message, HasSubstr("ops.cu [sm_90]"));
  EXPECT_TRUE(fake->loads().empty());
}

TEST_F(RuntimeTest, PreloadLoadsEverythingAndLaterCallsLoadNothing) {
  kiln::Package package = open(two_unit_package());
  package.preload();
  EXPECT_EQ(fake->loads().size(), 2u);
  EXPECT_EQ(fake->function_loads(), 3);  // every kernel is loaded into the context
  const int lookups = fake->get_kernel_calls();
  std::uint64_t x = 1;
  package.kernel("ka1").launch(1, 1, 0, nullptr, x);
  package.kernel("ka2").launch(1, 1, 0, nullptr, x);
  package.kernel("kb").launch(1, 1, 0, nullptr);
  EXPECT_EQ(fake->loads().size(), 2u);
  EXPECT_EQ(fake->get_kernel_calls(), lookups);
  EXPECT_EQ(fake->launches().size(), 3u);
}

TEST_F(RuntimeTest, PreloadFailsWhenAUnitHasNoImageForTheDevice) {
  fake->devices = {FakeDevice{75}};
  kiln::Package package = open(two_unit_package());
  const std::string message = error_of([&] { package.preload(); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_THAT(message, HasSubstr("app.kiln: unit a.cu on device 0 (compute capability 7.5): no image"));
}

TEST_F(RuntimeTest, KilnLogWritesOneLinePerImageLoad) {
  kiln::test::set_variable("KILN_LOG", "1");
  kiln::Package package = open(single_kernel_package({"sm_80", "sm_90"}));
  ::testing::internal::CaptureStderr();
  package.kernel("k");
  package.kernel("k");
  const std::string log = ::testing::internal::GetCapturedStderr();
  // std::regex: GoogleTest's own on Windows knows no bracket expressions.
  EXPECT_TRUE(std::regex_match(log, std::regex("kiln: app\\.kiln: k on device 0 \\(compute capability 9\\.0\\): "
                                               "cubin sm_90 \\(exact match\\), loaded in [0-9]+\\.[0-9][0-9] ms\n")))
      << log;
}

TEST_F(RuntimeTest, NoLogWithoutKilnLog) {
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  ::testing::internal::CaptureStderr();
  package.kernel("k");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace kiln::testing
