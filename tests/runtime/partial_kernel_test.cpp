// Kernels that only some images of their unit hold (KERNEL_TARGETS): a kernel guarded by
// `#if __CUDA_ARCH__ >= 800`, or a toolkit kernel in a namespace versioned per SM. The runtime chooses
// among the images that hold the kernel, and where none fits the device, says which targets do.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

namespace kiln::testing {
namespace {

// ops.cu for sm_75, sm_80, sm_90 and compute_75: `always` everywhere, `new_only` from sm_80 on (the
// compute_75 PTX lacks it too), `old_only` below sm_90 (so in compute_75 as well).
Bytes guarded_package() {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_75", "sm_80", "sm_90", "compute_75"}}};
  spec.kernels = {KernelSpec("always", "ops.cu"), KernelSpec("new_only", "ops.cu").only_in({"sm_80", "sm_90"}),
                  KernelSpec("old_only", "ops.cu").only_in({"sm_75", "sm_80", "compute_75"})};
  return build_package(spec);
}

std::string failure_of(kiln::Package& package, const char* kernel) {
  try {
    package.kernel(kernel);
  } catch (const kiln::Error& e) {
    EXPECT_EQ(e.status(), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
    return e.what();
  }
  ADD_FAILURE() << kernel << " loaded";
  return {};
}

TEST_F(RuntimeTest, AKernelEveryImageHoldsLoadsTheUnitsChoice) {
  fake->devices = {FakeDevice{90, false}};
  kiln::Package package = open(guarded_package());
  package.kernel("always");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_90")});
}

TEST_F(RuntimeTest, AKernelSomeImagesHoldLoadsTheBestOfThose) {
  fake->devices = {FakeDevice{86, false}};   // sm_80 is the unit's choice, and it holds both
  kiln::Package package = open(guarded_package());
  package.kernel("new_only");
  package.kernel("old_only");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_80")});
}

TEST_F(RuntimeTest, WhereTheUnitsChoiceLacksAKernelAnotherImageThatHoldsItLoads) {
  fake->devices = {FakeDevice{90, false}};   // sm_90 lacks old_only; the compute_75 PTX holds it
  kiln::Package package = open(guarded_package());
  package.kernel("old_only");
  package.kernel("always");
  EXPECT_EQ(fake->loads(), (std::vector<std::string>{image_text("ops.cu", "compute_75"), image_text("ops.cu", "sm_90")}));
}

TEST_F(RuntimeTest, NoImageForTheDeviceHoldingTheKernelNamesTheTargetsThatDo) {
  fake->devices = {FakeDevice{75, false}};
  kiln::Package package = open(guarded_package());
  const std::string message = failure_of(package, "new_only");
  EXPECT_NE(message.find("app.kiln: new_only on device 0 (compute capability 7.5)"), std::string::npos) << message;
  EXPECT_NE(message.find("the images that hold it are sm_80, sm_90"), std::string::npos) << message;
  EXPECT_TRUE(fake->loads().empty());
  package.kernel("always");   // the unit itself still loads
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_75")});
}

TEST_F(RuntimeTest, AForcedTargetThatLacksTheKernelSaysSo) {
  kiln::test::set_variable("KILN_FORCE_TARGET", "sm_75");
  fake->devices = {FakeDevice{90, false}};
  kiln::Package package = open(guarded_package());
  const std::string message = failure_of(package, "new_only");
  EXPECT_NE(message.find("only the sm_80, sm_90 images hold this kernel"), std::string::npos) << message;
  EXPECT_NE(message.find("KILN_FORCE_TARGET=sm_75 allows none of them"), std::string::npos) << message;
}

TEST_F(RuntimeTest, ImagesForOtherLoadersFollowTheSameChoice) {
  kiln::Package package = open(guarded_package());
  kiln_image image{};
  image.struct_size = sizeof image;
  ASSERT_EQ(kiln_package_select_image_for_arch(package.get(), "old_only", 90, 13000, &image), KILN_STATUS_SUCCESS)
      << kiln_package_last_error(package.get());
  EXPECT_STREQ(image.target, "compute_75");
  EXPECT_EQ(kiln_package_select_image_for_arch(package.get(), "new_only", 75, 13000, &image),
            KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_NE(std::string(kiln_package_last_error(package.get())).find("sm_80, sm_90"), std::string::npos);
}

}  // namespace
}  // namespace kiln::testing
