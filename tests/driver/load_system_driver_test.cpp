// What load_system_driver() reports for each way a machine can lack a usable driver: no libcuda, the
// toolkit's stub, a driver older than 12.0, a driver missing an entry point, cuInit failing. The fake
// drivers built beside this test stand in for real ones past dlopen.
#include "driver/driver_api.hpp"
#include "test_support.hpp"

#include <dlfcn.h>
#include <unistd.h>
#include <gtest/gtest.h>

namespace kiln::driver {
namespace {

using test::contains;
using test::ScopedEnv;

bool system_has_libcuda() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

TEST(LoadSystemDriver, MissingLibraryIsNoLibraryAndNamesThePath) {
  ScopedEnv env("KILN_LIBCUDA", "/nonexistent/kiln/libcuda.so.1");
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_EQ(load.driver, nullptr);
  EXPECT_TRUE(contains(load.message, "no NVIDIA driver: /nonexistent/kiln/libcuda.so.1 cannot be opened"));
  EXPECT_TRUE(contains(load.message, "KILN_LIBCUDA"));
  EXPECT_TRUE(contains(load.message, "No such file"));  // dlerror's reason
}

TEST(LoadSystemDriver, DefaultIsLibcudaSo1AndAbsentHere) {
  if (system_has_libcuda()) GTEST_SKIP() << "this machine has a libcuda.so.1";
  ScopedEnv env("KILN_LIBCUDA", nullptr);
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, "no NVIDIA driver: libcuda.so.1 cannot be opened: "));
}

TEST(LoadSystemDriver, EmptyOverrideMeansTheDefault) {
  if (system_has_libcuda()) GTEST_SKIP() << "this machine has a libcuda.so.1";
  ScopedEnv env("KILN_LIBCUDA", "");  // dlopen("") would return the program itself
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, "libcuda.so.1 cannot be opened"));
}

TEST(LoadSystemDriver, ToolkitStubIsStubLibrary) {
#ifdef KILN_TEST_STUB_LIBCUDA
  if (access(KILN_TEST_STUB_LIBCUDA, R_OK) != 0) GTEST_SKIP() << KILN_TEST_STUB_LIBCUDA " is gone";
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_STUB_LIBCUDA);
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::stub_library);
  EXPECT_EQ(load.driver, nullptr);
  EXPECT_EQ(load.message, "only the CUDA toolkit's stub libcuda.so was found (" KILN_TEST_STUB_LIBCUDA
                          "); install the NVIDIA driver");
#else
  GTEST_SKIP() << "no CUDA toolkit stub libcuda.so at configure time";
#endif
}

TEST(LoadSystemDriver, DriverWithoutGetProcAddressV2IsTooOld) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA_11);
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::too_old);
  EXPECT_TRUE(contains(load.message, "the NVIDIA driver is older than CUDA 12.0 (" KILN_TEST_FAKE_LIBCUDA_11));
}

TEST(LoadSystemDriver, FakeDriverLoadsWithTheAbiVersionsOfCudaTypedefs) {
  // The fake hands out an entry point only for the version its cudaTypedefs.h PFN name carries.
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  const DriverLoad load = load_system_driver();
  ASSERT_EQ(load.failure, DriverLoadFailure::none) << load.message;
  ASSERT_NE(load.driver, nullptr);
  EXPECT_TRUE(contains(load.message, KILN_TEST_FAKE_LIBCUDA));
}

TEST(LoadSystemDriver, MissingEntryPointIsTooOldAndNamed) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv hide("KILN_FAKE_HIDE", "cuLibraryLoadData");  // CUDA_SUCCESS with a null pointer
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::too_old);
  EXPECT_EQ(load.driver, nullptr);
  EXPECT_TRUE(contains(load.message, "lacks cuLibraryLoadData (ABI 12000): symbol not found"));
}

TEST(LoadSystemDriver, GetProcAddressFailureIsTooOld) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv fail("KILN_FAKE_PROC_RESULT", "1");  // what a driver answers for a version above its own
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::too_old);
  EXPECT_TRUE(contains(load.message, "lacks cuGetErrorName (ABI 6000): cuGetProcAddress failed with CUDA error 1"));
}

TEST(LoadSystemDriver, StubAnswerFromGetProcAddressIsStubLibrary) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv stub("KILN_FAKE_PROC_RESULT", "34");
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::stub_library);
  EXPECT_TRUE(contains(load.message, "stub libcuda.so was found (" KILN_TEST_FAKE_LIBCUDA ")"));
}

TEST(LoadSystemDriver, StubAnswerFromInitIsStubLibrary) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv stub("KILN_FAKE_INIT_RESULT", "34");
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::stub_library);
  EXPECT_EQ(load.driver, nullptr);
}

TEST(LoadSystemDriver, NoDeviceIsInitFailedWithTheErrorName) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv no_device("KILN_FAKE_INIT_RESULT", "100");
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", nullptr);
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::init_failed);
  EXPECT_EQ(load.init_result, k_cuda_error_no_device);
  EXPECT_EQ(load.driver, nullptr);
  EXPECT_EQ(load.message, "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE, " KILN_TEST_FAKE_LIBCUDA ")");
}

TEST(LoadSystemDriver, NoDeviceMentionsCudaVisibleDevices) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv no_device("KILN_FAKE_INIT_RESULT", "100");
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", "");
  const DriverLoad load = load_system_driver();
  EXPECT_TRUE(contains(load.message, "CUDA_VISIBLE_DEVICES is \"\""));
}

TEST(LoadSystemDriver, UnnamedInitErrorIsReportedByNumber) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv failure("KILN_FAKE_INIT_RESULT", "999");
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::init_failed);
  EXPECT_EQ(load.init_result, 999);
  EXPECT_TRUE(contains(load.message, "the NVIDIA driver failed to initialize (cuInit: CUDA error 999, "));
}

}  // namespace
}  // namespace kiln::driver
