// How many driver calls a first launch makes, and which (issue 32): what is asked once per process or
// device is asked once and remembered, a first launch asks the driver only for the current device,
// the load and the kernel, and a later launch is the launch alone.
#include "runtime_fixture.hpp"

#include <thread>

namespace kiln::testing {
namespace {

using ::testing::ElementsAre;

// Two units, each built for sm_80 and sm_90 with a PTX fallback; "saxpy" in one, "scale" in the other.
Bytes two_unit_package() {
  PackageSpec spec;
  spec.units = {{"saxpy.cu", {"sm_80", "sm_90", "compute_80"}}, {"scale.cu", {"sm_80", "sm_90", "compute_80"}}};
  spec.kernels = {KernelSpec("saxpy", "saxpy.cu", {4, 4, 8, 8}), KernelSpec("scale", "scale.cu", {8, 4})};
  return build_package(spec);
}

struct Args {
  int n = 1;
  float a = 2;
  void* x = nullptr;
  void* y = nullptr;
};

void launch_saxpy(const kiln::Kernel& kernel, Args& args) { kernel.launch(1, 256, 0, nullptr, args.n, args.a, args.x, args.y); }

// A program that uses CUDA has a context current when it asks for a kernel.
class DriverCalls : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    fake->make_current(0);
  }
};

TEST_F(DriverCalls, AFirstLaunchAsksForTheDeviceLoadsResolvesAndLaunchesALaterLaunchOnlyLaunches) {
  // The driver bound by an earlier package: what is asked once per process has been asked.
  {
    kiln::Package earlier = open(two_unit_package(), "earlier.kiln");
    earlier.kernel("scale");
  }
  fake->clear_calls();
  kiln::Package package = open(two_unit_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  Args args;
  launch_saxpy(saxpy, args);
  const std::vector<std::string> first = fake->calls();
  EXPECT_THAT(first, ElementsAre("cuCtxGetDevice", "cuLibraryLoadData", "cuLibraryGetKernel", "cuLaunchKernel"));
  EXPECT_LE(first.size(), 5u);

  fake->clear_calls();
  launch_saxpy(saxpy, args);
  EXPECT_THAT(fake->calls(), ElementsAre("cuLaunchKernel"));
  ASSERT_EQ(fake->launches().size(), 2u);
  EXPECT_EQ(fake->launches()[1].image, image_text("saxpy.cu", "sm_90"));
}

TEST_F(DriverCalls, AProcessAsksForTheDeviceCountAndItsOneDevicesComputeCapabilityOnce) {
  // From a fresh driver: binding asks what holds for the whole process; then the first launch.
  kiln::Package package = open(two_unit_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  Args args;
  launch_saxpy(saxpy, args);
  EXPECT_THAT(fake->calls(), ElementsAre("cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)",
                                         "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)", "cuCtxGetDevice",
                                         "cuLibraryLoadData", "cuLibraryGetKernel", "cuLaunchKernel"));
  // Another package, another unit: nothing about the device is asked again.
  fake->clear_calls();
  kiln::Package other = open(two_unit_package(), "other.kiln");
  other.kernel("scale").launch(1, 1, 0, nullptr, args.x, args.n);
  EXPECT_THAT(fake->calls(), ElementsAre("cuCtxGetDevice", "cuLibraryLoadData", "cuLibraryGetKernel", "cuLaunchKernel"));
}

TEST_F(DriverCalls, ASecondKernelOfALoadedUnitCostsTheDeviceTheKernelAndTheLaunch) {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_90"}}};
  spec.kernels = {KernelSpec("a", "ops.cu"), KernelSpec("b", "ops.cu")};
  kiln::Package package = open(build_package(spec));
  package.kernel("a").launch(1, 1, 0, nullptr);
  fake->clear_calls();
  package.kernel("b").launch(1, 1, 0, nullptr);
  EXPECT_THAT(fake->calls(), ElementsAre("cuCtxGetDevice", "cuLibraryGetKernel", "cuLaunchKernel"));
}

TEST_F(DriverCalls, ALaterLaunchFromAThreadWithoutAContextMakesDeviceZerosPrimaryContextCurrent) {
  kiln::Package package = open(two_unit_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  std::thread([&] {
    fake->clear_calls();
    Args args;
    launch_saxpy(saxpy, args);  // this thread has no context: the driver refuses the launch, nothing ran
    EXPECT_THAT(fake->calls(), ElementsAre("cuLaunchKernel", "cuCtxGetDevice", "cuCtxGetCurrent", "cuDeviceGet",
                                           "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuLaunchKernel"));
    fake->clear_calls();
    launch_saxpy(saxpy, args);
    EXPECT_THAT(fake->calls(), ElementsAre("cuLaunchKernel"));
  }).join();
  ASSERT_EQ(fake->launches().size(), 2u);
  EXPECT_EQ(fake->launches()[0].device, 0);
}

TEST_F(DriverCalls, WithSeveralDevicesEveryLaunchAsksWhichIsCurrent) {
  fake->devices = {FakeDevice{90}, FakeDevice{80}};
  kiln::Package package = open(two_unit_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  Args args;
  launch_saxpy(saxpy, args);
  fake->clear_calls();
  launch_saxpy(saxpy, args);
  EXPECT_THAT(fake->calls(), ElementsAre("cuCtxGetDevice", "cuLaunchKernel"));
  fake->make_current(1);  // another architecture: its own image, never the other device's kernel
  launch_saxpy(saxpy, args);
  ASSERT_EQ(fake->launches().size(), 3u);
  EXPECT_EQ(fake->launches()[2].device, 1);
  EXPECT_EQ(fake->launches()[2].image, image_text("saxpy.cu", "sm_80"));
}

TEST_F(DriverCalls, MoreThanTheDefaultDynamicSharedMemoryAsksForTheDeviceItsLimitIsSetOn) {
  kiln::Package package = open(two_unit_package());
  const kiln::Kernel saxpy = package.kernel("saxpy");
  Args args;
  saxpy.launch(1, 256, 64 * 1024, nullptr, args.n, args.a, args.x, args.y);
  fake->clear_calls();
  saxpy.launch(1, 256, 64 * 1024, nullptr, args.n, args.a, args.x, args.y);
  EXPECT_THAT(fake->calls(), ElementsAre("cuCtxGetDevice", "cuLaunchKernel"));
  EXPECT_EQ(fake->attribute_calls().size(), 1u);
}

TEST_F(DriverCalls, IntegratedAndTheDriverVersionAreAskedOnlyWhenNoCubinOfTheExactArchitectureIsThere) {
  fake->devices = {FakeDevice{87, true}};
  PackageSpec spec;
  spec.units = {{"exact.cu", {"sm_80", "sm_87", "compute_80"}}, {"older.cu", {"sm_80", "compute_80"}}};
  spec.kernels = {KernelSpec("exact", "exact.cu"), KernelSpec("older", "older.cu")};
  kiln::Package package = open(build_package(spec));
  package.kernel("exact");
  EXPECT_EQ(fake->loads().back(), image_text("exact.cu", "sm_87"));
  for (const std::string& call : fake->calls()) {
    EXPECT_NE(call, "cuDeviceGetAttribute(INTEGRATED)");
    EXPECT_NE(call, "cuDriverGetVersion");
  }
  fake->clear_calls();
  package.kernel("older");  // integrated: not the sm_80 cubin, the PTX
  EXPECT_EQ(fake->loads().back(), image_text("older.cu", "compute_80"));
  EXPECT_THAT(fake->calls(), ElementsAre("cuCtxGetDevice", "cuDeviceGetAttribute(INTEGRATED)", "cuDriverGetVersion",
                                         "cuLibraryLoadData", "cuLibraryGetKernel"));
}

TEST_F(DriverCalls, AFailureMessageDescribesTheDeviceWhole) {
  fake->devices = {FakeDevice{87, true}};
  fake->unusable_images[image_text("ops.cu", "sm_87")] = 209;
  kiln::Package package = open(single_kernel_package({"sm_87"}));
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_NO_IMAGE_FOR_DEVICE);
  EXPECT_THAT(message, ::testing::HasSubstr("loaded for device 0 (compute capability 8.7, integrated)"));
}

}  // namespace
}  // namespace kiln::testing
