// kiln_package_find_kernel and kiln_package_select_image*: which image is handed to another loader,
// that it is the one kiln_package_get_kernel loads, and every way the calls fail.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include "core/driver_access.hpp"

#include <cstdlib>
#include <cstring>

namespace kiln::testing {
namespace {

using ::testing::HasSubstr;

// A kiln_image full of garbage, as a caller's uninitialized struct would be, with struct_size set.
kiln_image garbage_image() {
  kiln_image image;
  std::memset(&image, 0xab, sizeof image);
  image.struct_size = sizeof image;
  return image;
}

void expect_cleared(const kiln_image& image) {
  EXPECT_EQ(image.struct_size, sizeof image);
  EXPECT_EQ(image.data, nullptr);
  EXPECT_EQ(image.size, 0u);
  EXPECT_EQ(image.kind, 0u);
  EXPECT_EQ(image.compute_capability, 0u);
  EXPECT_EQ(image.target, nullptr);
  EXPECT_EQ(image.kernel_name, nullptr);
  EXPECT_EQ(image.lowered_name, nullptr);
  EXPECT_EQ(image.description, nullptr);
}

std::string text_of(const kiln::Image& image) { return image_key(image.data); }

// ops.cu for sm_80, sm_90 and compute_80, holding scale<float, 4> (with a lowered name) and saxpy.
Bytes two_kernel_package() {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_80", "sm_90", "compute_80"}}};
  spec.kernels = {KernelSpec("scale<float, 4>", "ops.cu").with_lowered("_Z5scaleIfLi4EEvPT_S0_i"),
                  KernelSpec("saxpy", "ops.cu")};
  return build_package(spec);
}

TEST_F(RuntimeTest, FindKernelRefusesNullArguments) {
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  std::size_t index = 7;
  EXPECT_EQ(kiln_package_find_kernel(nullptr, "k", &index), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(index, 0u);
  EXPECT_STREQ(kiln_last_error(), "kiln_package_find_kernel: package is NULL");
  EXPECT_EQ(kiln_package_find_kernel(package.get(), nullptr, &index), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_package_last_error(package.get()), "kiln_package_find_kernel: name is NULL");
  EXPECT_EQ(kiln_package_find_kernel(package.get(), "k", nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_package_last_error(package.get()), "kiln_package_find_kernel: index is NULL");
}

TEST_F(RuntimeTest, FindKernelTakesEveryRecordedNameWithoutADriver) {
  driver::DriverLoad load;
  load.failure = driver::DriverLoadFailure::no_library;
  load.message = "libcuda.so.1: cannot open shared object file: No such file or directory";
  core::set_driver_load_for_testing(std::move(load));
  kiln::Package package = open(two_kernel_package());
  const std::size_t scale = package.find_kernel("scale<float, 4>");
  EXPECT_STREQ(kiln_package_kernel_name(package.get(), scale), "scale<float, 4>");
  EXPECT_EQ(package.find_kernel("scale< float,4 >"), scale);          // normalized, as get_kernel does
  EXPECT_EQ(package.find_kernel("_Z5scaleIfLi4EEvPT_S0_i"), scale);  // the lowered name
  EXPECT_STREQ(kiln_package_kernel_name(package.get(), package.find_kernel("saxpy")), "saxpy");

  std::size_t index = 7;
  EXPECT_EQ(kiln_package_find_kernel(package.get(), "scale<float, 5>", &index), KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_EQ(index, 0u);
  const std::string message = "no kernel 'scale<float, 5>' in app.kiln; nearest: scale<float, 4>, saxpy";
  EXPECT_EQ(kiln_last_error(), message);
  EXPECT_EQ(kiln_package_last_error(package.get()), message);  // recorded on a const package too
}

TEST_F(RuntimeTest, SelectImageRefusesNullArgumentsAndShortStructs) {
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  kiln_image image = garbage_image();
  EXPECT_EQ(kiln_package_select_image(nullptr, "k", KILN_CURRENT_DEVICE, &image), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_package_select_image: package is NULL");
  expect_cleared(image);
  image = garbage_image();
  EXPECT_EQ(kiln_package_select_image(package.get(), nullptr, 0, &image), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_package_last_error(package.get()), "kiln_package_select_image: kernel_name is NULL");
  expect_cleared(image);
  EXPECT_EQ(kiln_package_select_image(package.get(), "k", 0, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_last_error(), "kiln_package_select_image: out is NULL");
  image = garbage_image();
  EXPECT_EQ(kiln_package_select_image_for_arch(nullptr, "k", 90, 0, &image), KILN_STATUS_INVALID_ARGUMENT);
  expect_cleared(image);
  EXPECT_EQ(kiln_package_select_image_for_arch(package.get(), nullptr, 90, 0, &image), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_select_image_for_arch(package.get(), "k", 90, 0, nullptr), KILN_STATUS_INVALID_ARGUMENT);

  // A struct_size below this version's kiln_image: refused, and nothing past struct_size is written.
  for (std::size_t size : {std::size_t{0}, sizeof(kiln_image) - 1}) {
    image = garbage_image();
    image.struct_size = size;
    EXPECT_EQ(kiln_package_select_image(package.get(), "k", 0, &image), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(kiln_last_error(), HasSubstr("kiln_package_select_image: out->struct_size is " +
                                             std::to_string(size) + ", less than sizeof(kiln_image)"));
    EXPECT_EQ(image.size, garbage_image().size);
    EXPECT_EQ(kiln_package_select_image_for_arch(package.get(), "k", 90, 0, &image), KILN_STATUS_INVALID_ARGUMENT);
  }
  // A larger struct (a caller built against a later header): this version's fields are filled, the
  // appended ones are left alone.
  struct Later {
    kiln_image image;
    std::uint64_t appended;
  } later;
  std::memset(&later, 0xab, sizeof later);
  later.image.struct_size = sizeof later;
  ASSERT_EQ(kiln_package_select_image(package.get(), "k", 0, &later.image), KILN_STATUS_SUCCESS);
  EXPECT_STREQ(later.image.target, "sm_90");
  EXPECT_EQ(later.appended, 0xababababababababull);
  EXPECT_EQ(later.image.struct_size, sizeof later);
}

TEST_F(RuntimeTest, SelectImageDescribesTheImageAndLoadsNothing) {
  kiln::Package package = open(two_kernel_package());
  const kiln::Image image = package.image("scale<float,4>");
  EXPECT_EQ(text_of(image), image_text("ops.cu", "sm_90"));
  EXPECT_EQ(image.size, test_image(image_text("ops.cu", "sm_90"), "sm_90", false).size());
  EXPECT_EQ(image.kind, kiln::Image::Kind::cubin);
  EXPECT_EQ(image.compute_capability, 90u);
  EXPECT_EQ(image.target, "sm_90");
  EXPECT_EQ(image.kernel_name, "scale<float, 4>");
  EXPECT_EQ(image.lowered_name, "_Z5scaleIfLi4EEvPT_S0_i");
  EXPECT_EQ(image.description, "cubin sm_90 (exact match)");
  // Nothing loaded, and no context retained or made current.
  EXPECT_TRUE(fake->loads().empty());
  EXPECT_EQ(fake->primary_retains(), 0);
  driver::CUcontext context = nullptr;
  fake->ctx_get_current(&context);
  EXPECT_EQ(context, nullptr);
}

TEST_F(RuntimeTest, SelectImageUsesTheCurrentDeviceOrTheOneAskedFor) {
  fake->devices = {FakeDevice{80}, FakeDevice{90}};
  kiln::Package package = open(single_kernel_package({"sm_80", "sm_90"}));
  EXPECT_EQ(package.image("k").target, "sm_80");  // no context: device 0
  EXPECT_EQ(package.image("k", 1).target, "sm_90");
  fake->make_current(1);
  EXPECT_EQ(package.image("k").target, "sm_90");
  EXPECT_EQ(package.image("k", KILN_CURRENT_DEVICE).compute_capability, 90u);
  EXPECT_EQ(package.image("k", 0).target, "sm_80");
}

TEST_F(RuntimeTest, SelectImageRefusesDevicesTheDriverDoesNotHave) {
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  EXPECT_EQ(error_of([&] { package.image("k", 1); }, KILN_STATUS_INVALID_ARGUMENT),
            "app.kiln: kernel 'k': there is no CUDA device 1: cuDeviceGet: CUDA_ERROR_INVALID_DEVICE (101)");
  EXPECT_EQ(error_of([&] { package.image("k", -2); }, KILN_STATUS_INVALID_ARGUMENT),
            "app.kiln: kernel 'k': device -2 is not a CUDA device ordinal (0, 1, ...) or KILN_CURRENT_DEVICE (-1)");
  fake->devices.clear();
  kiln::Package other = open(single_kernel_package({"sm_90"}));
  EXPECT_EQ(error_of([&] { other.image("k"); }, KILN_STATUS_NO_DEVICE),
            "app.kiln: kernel 'k': cuDeviceGet for device 0 failed: CUDA_ERROR_NO_DEVICE (100)");
  error_of([&] { other.image("k", 0); }, KILN_STATUS_NO_DEVICE);
  error_of([&] { other.image("nope"); }, KILN_STATUS_KERNEL_NOT_FOUND);  // decided before the device
}

TEST_F(RuntimeTest, WithoutADriverOnlyTheArchitectureFormWorks) {
  driver::DriverLoad load;
  load.failure = driver::DriverLoadFailure::no_library;
  load.message = "libcuda.so.1: cannot open shared object file: No such file or directory";
  core::set_driver_load_for_testing(std::move(load));
  kiln::Package package = open(single_kernel_package({"sm_80", "sm_90"}));
  EXPECT_EQ(error_of([&] { package.image("k"); }, KILN_STATUS_NO_DRIVER),
            "libcuda.so.1: cannot open shared object file: No such file or directory");
  const kiln::Image image = package.image_for_arch("k", 90);
  EXPECT_EQ(image.target, "sm_90");
  EXPECT_EQ(text_of(image), image_text("ops.cu", "sm_90"));
  EXPECT_EQ(package.image_for_arch("k", 86).description,
            "cubin sm_80 (same major, lower minor: binary compatible)");
}

TEST_F(RuntimeTest, NoImageForTheDeviceSaysWhatTheUnitHolds) {
  fake->devices = {FakeDevice{75}};
  kiln::Package package = open(single_kernel_package({"sm_80", "sm_90"}));
  const std::string message = error_of([&] { package.image("k"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_THAT(message, HasSubstr("app.kiln: k on device 0 (compute capability 7.5): no image for a device of "
                                 "compute capability 7.5; the package holds sm_80, sm_90"));
  EXPECT_EQ(error_of([&] { package.kernel("k"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE), message);
  EXPECT_THAT(error_of([&] { package.image_for_arch("k", 75); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE),
              HasSubstr("app.kiln: k on a device of compute capability 7.5: no image"));
}

// The image handed out is the one get_kernel loads, on every device architecture.
TEST_F(RuntimeTest, SelectImageMakesGetKernelsChoice) {
  const std::vector<std::string> targets = {"sm_80", "sm_90a", "sm_90", "sm_100f", "sm_120f",
                                            "compute_90a", "compute_100f", "compute_80"};
  for (int arch : {75, 80, 86, 89, 90, 100, 103, 110, 120, 121}) {
    SCOPED_TRACE("compute capability " + std::to_string(arch));
    fake->devices = {FakeDevice{arch}};
    kiln::Package package = open(single_kernel_package(targets));
    kiln_image image{};
    image.struct_size = sizeof image;
    const kiln_status status = kiln_package_select_image(package.get(), "k", KILN_CURRENT_DEVICE, &image);
    kiln_kernel* kernel = nullptr;
    EXPECT_EQ(kiln_package_get_kernel(package.get(), "k", &kernel), status);
    if (status != KILN_STATUS_SUCCESS) continue;
    EXPECT_EQ(fake->loads().back(), image_key(image.data));
    EXPECT_EQ(fake->loads().back(), image_text("ops.cu", image.target));
    EXPECT_EQ(package.image_for_arch("k", static_cast<std::uint32_t>(arch), 13000).target, image.target);
  }
}

// On an integrated GPU (Tegra) the device refuses lower-minor cubins; the architecture form assumes a
// discrete GPU, as kiln.h says.
TEST_F(RuntimeTest, OnlyTheDeviceFormKnowsADeviceIsIntegrated) {
  fake->devices = {FakeDevice{87, true}};
  kiln::Package package = open(single_kernel_package({"sm_80", "compute_80"}));
  EXPECT_EQ(package.image("k").target, "compute_80");
  package.kernel("k");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "compute_80")});
  EXPECT_EQ(package.image_for_arch("k", 87).target, "sm_80");
}

TEST_F(RuntimeTest, TheDriverVersionBoundsThePtxChosenForAnArchitecture) {
  kiln::Package package = open(single_kernel_package({"compute_80"}, /*ptx_version=*/90));
  EXPECT_THAT(error_of([&] { package.image_for_arch("k", 90, 12080); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE),
              HasSubstr("PTX ISA 9.0 is newer than the driver accepts (8.7)"));
  EXPECT_EQ(package.image_for_arch("k", 90, 13000).target, "compute_80");
  EXPECT_EQ(package.image_for_arch("k", 90).target, "compute_80");

  // 0: the newest driver this runtime knows (13.0), or the package's NVRTC version when newer.
  kiln::Package newer = open(single_kernel_package({"compute_80"}, /*ptx_version=*/91));
  error_of([&] { newer.image_for_arch("k", 90); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  PackageSpec spec;
  spec.units = {{"ops.cu", {"compute_80"}}};
  spec.kernels = {KernelSpec("k", "ops.cu")};
  spec.ptx_version = 91;
  spec.metadata = {{"nvrtc.version", "13.1"}};
  kiln::Package built_by_13_1 = open(build_package(spec));
  EXPECT_EQ(built_by_13_1.image_for_arch("k", 90).target, "compute_80");
  error_of([&] { built_by_13_1.image_for_arch("k", 90, 13000); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  // An nvrtc.version that is not a CUDA version ("13.1.0") counts for nothing: 13.0 it is.
  spec.metadata = {{"nvrtc.version", "13.1.0"}};
  kiln::Package unreadable_version = open(build_package(spec));
  error_of([&] { unreadable_version.image_for_arch("k", 90); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
}

TEST_F(RuntimeTest, ArchitecturesAndDriverVersionsOutOfRangeAreRefused) {
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  for (std::uint32_t arch : {0u, 9u, 1000u}) {
    EXPECT_EQ(error_of([&] { package.image_for_arch("k", arch); }, KILN_STATUS_INVALID_ARGUMENT),
              "app.kiln: kernel 'k': compute capability " + std::to_string(arch) +
                  " is not major * 10 + minor (90 for 9.0)");
  }
  for (int version : {-1, 13, 999}) {
    EXPECT_THAT(error_of([&] { package.image_for_arch("k", 90, version); }, KILN_STATUS_INVALID_ARGUMENT),
                HasSubstr("driver version " + std::to_string(version) + " is not in cuDriverGetVersion form"));
  }
}

TEST_F(RuntimeTest, SelectImageHonorsKilnForceTarget) {
  kiln::test::set_variable("KILN_FORCE_TARGET", "ptx");  // read when the package is opened
  kiln::Package package = open(single_kernel_package({"sm_80", "sm_90", "compute_80"}));
  const kiln::Image image = package.image("k");
  EXPECT_EQ(image.target, "compute_80");
  EXPECT_EQ(image.kind, kiln::Image::Kind::ptx);
  EXPECT_EQ(image.description, "PTX compute_80 (compiled by the driver for this device)");
  EXPECT_EQ(package.image_for_arch("k", 90).target, "compute_80");

  kiln::test::set_variable("KILN_FORCE_TARGET", "sm_100");
  kiln::Package forced = open(single_kernel_package({"sm_80", "sm_90", "compute_80"}));
  EXPECT_THAT(error_of([&] { forced.image("k"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE),
              HasSubstr("KILN_FORCE_TARGET=sm_100 but ops.cu has no image for it"));
  error_of([&] { forced.image_for_arch("k", 100); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
}

TEST_F(RuntimeTest, KilnLogWritesOneLinePerSelection) {
  kiln::test::set_variable("KILN_LOG", "1");
  kiln::Package package = open(single_kernel_package({"sm_80", "sm_90"}));
  ::testing::internal::CaptureStderr();
  package.image("k");
  package.image_for_arch("k", 86);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "kiln: app.kiln: k on device 0 (compute capability 9.0): cubin sm_90 (exact match), selected for "
            "another loader\n"
            "kiln: app.kiln: k on a device of compute capability 8.6: cubin sm_80 (same major, lower minor: "
            "binary compatible), selected for another loader\n");
}

}  // namespace
}  // namespace kiln::testing
