// What load_system_driver() reports for each way a machine can lack a usable driver: no libcuda, the
// toolkit's stub, a driver older than 12.0, a driver missing an entry point, cuInit failing. The fake
// drivers built beside this test stand in for real ones past dlopen.
#include "driver/driver_api.hpp"
#include "platform/library.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#if !defined(_WIN32)
#include <unistd.h>
#endif

namespace kiln::driver {
namespace {

using test::contains;
using test::ScopedEnv;

bool system_has_libcuda() {
  const platform::OpenedLibrary opened = platform::open_system_library(platform::driver_library_name());
  platform::close_library(opened.handle);
  return opened.handle != nullptr;
}

// A fake driver's path as the loader reports the file it loaded (Windows: with '\\').
std::string as_loaded(const char* path) { return std::filesystem::path(path).make_preferred().string(); }

// What the system says of a library file that does not exist.
#if defined(_WIN32)
constexpr const char* k_no_such_file = "(error 126)";   // ERROR_MOD_NOT_FOUND, in any language
#else
constexpr const char* k_no_such_file = "No such file";   // dlerror's reason
#endif

TEST(LoadSystemDriver, MissingLibraryIsNoLibraryAndNamesThePath) {
  ScopedEnv env("KILN_LIBCUDA", "/nonexistent/kiln/libcuda.so.1");
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_EQ(load.driver, nullptr);
  EXPECT_TRUE(contains(load.message, "no NVIDIA driver: /nonexistent/kiln/libcuda.so.1 cannot be opened"));
  EXPECT_TRUE(contains(load.message, "KILN_LIBCUDA"));
  EXPECT_TRUE(contains(load.message, k_no_such_file));
}

TEST(LoadSystemDriver, DefaultIsTheSystemsDriverAndAbsentHere) {
  if (system_has_libcuda()) GTEST_SKIP() << "this machine has a " << platform::driver_library_name();
  ScopedEnv env("KILN_LIBCUDA", nullptr);
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, std::string("no NVIDIA driver: ") + platform::driver_library_name() +
                                         " cannot be opened: "));
#if defined(_WIN32)
  EXPECT_TRUE(contains(load.message, "(looked in System32 only)")) << "never the program's directory or PATH";
#endif
}

TEST(LoadSystemDriver, EmptyOverrideMeansTheDefault) {
  if (system_has_libcuda()) GTEST_SKIP() << "this machine has a " << platform::driver_library_name();
  ScopedEnv env("KILN_LIBCUDA", "");  // dlopen("") would return the program itself
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, std::string(platform::driver_library_name()) + " cannot be opened"));
}

#if defined(_WIN32)
TEST(LoadSystemDriver, ADriverBesideTheProgramIsNeverTaken) {
  // nvcuda.dll comes from System32 only: a copy of the (fake) driver in the program's directory or
  // on PATH, where a planted DLL would be, is not loaded. (The fake is not named nvcuda.dll where it
  // is built: once loaded, a module of that name would be what any later load by name returns.)
  if (system_has_libcuda()) GTEST_SKIP() << "this machine has an nvcuda.dll";
  const std::filesystem::path beside = test::own_program().parent_path() / "nvcuda.dll";
  std::filesystem::remove(beside);
  std::filesystem::copy_file(KILN_TEST_FAKE_LIBCUDA, beside);
  ScopedEnv env("KILN_LIBCUDA", nullptr);
  ScopedEnv path("PATH", (test::own_program().parent_path().string() + ";" + std::getenv("PATH")).c_str());
  const DriverLoad load = load_system_driver();
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library) << load.message;
  std::filesystem::remove(beside);
}
#endif

TEST(LoadSystemDriver, ToolkitStubIsStubLibrary) {
#ifdef KILN_TEST_STUB_LIBCUDA
  if (!std::filesystem::exists(KILN_TEST_STUB_LIBCUDA)) GTEST_SKIP() << KILN_TEST_STUB_LIBCUDA " is gone";
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
  EXPECT_TRUE(contains(load.message, "the NVIDIA driver is older than CUDA 12.0 (" + as_loaded(KILN_TEST_FAKE_LIBCUDA_11)));
}

TEST(LoadSystemDriver, FakeDriverLoadsWithTheAbiVersionsOfCudaTypedefs) {
  // The fake hands out an entry point only for the version its cudaTypedefs.h PFN name carries.
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  const DriverLoad load = load_system_driver();
  ASSERT_EQ(load.failure, DriverLoadFailure::none) << load.message;
  ASSERT_NE(load.driver, nullptr);
  // As requested: the loader is asked for the file's own name only to explain a failure.
  EXPECT_EQ(load.message, "loaded the NVIDIA driver " + std::string(KILN_TEST_FAKE_LIBCUDA));
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
  EXPECT_TRUE(contains(load.message, "stub libcuda.so was found (" + as_loaded(KILN_TEST_FAKE_LIBCUDA) + ")"));
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
  EXPECT_EQ(load.message, "no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE, " + as_loaded(KILN_TEST_FAKE_LIBCUDA) + ")");
}

TEST(LoadSystemDriver, NoDeviceMentionsCudaVisibleDevices) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv no_device("KILN_FAKE_INIT_RESULT", "100");
#if defined(_WIN32)
  GTEST_SKIP() << "Windows' C runtime holds no empty variable: setting one to \"\" unsets it";
#endif
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

// Whether the driver is in the process already (a package binds to it at open if so) is answered
// from what is loaded: a driver file copied under a fresh name is not loaded until it is opened, and
// is after; the system's driver name is not loaded here, where no program has used CUDA.
TEST(LoadSystemDriver, TheDriverInTheProcessIsTheOneLoaded) {
#if defined(_WIN32)
  GTEST_SKIP() << "GetModuleHandle answers this on Windows";
#else
  const std::filesystem::path copy = std::filesystem::temp_directory_path() /
                                     ("libkiln-fake-cuda-" + std::to_string(::getpid()) + ".so.1");
  std::filesystem::copy_file(KILN_TEST_FAKE_LIBCUDA, copy, std::filesystem::copy_options::overwrite_existing);
  ScopedEnv env("KILN_LIBCUDA", copy.c_str());
  EXPECT_FALSE(system_driver_in_process());
  EXPECT_FALSE(platform::library_loaded("libkiln-fake-cuda-" + std::to_string(::getpid()) + ".so.2"));
  const platform::OpenedLibrary opened = platform::open_library(copy.string());
  std::filesystem::remove(copy);   // a loaded library stays loaded, and the loader's list keeps its path
  ASSERT_NE(opened.handle, nullptr) << opened.error;
  EXPECT_TRUE(system_driver_in_process());
  EXPECT_TRUE(platform::library_loaded(copy.string()));
  platform::close_library(opened.handle);
  EXPECT_TRUE(platform::library_loaded("libc.so.6")) << "a library loaded by its SONAME";
  EXPECT_FALSE(platform::library_loaded("")) << "no library has an empty name (the program's is)";
  ScopedEnv system_driver("KILN_LIBCUDA", nullptr);
  if (!system_has_libcuda()) {
    EXPECT_FALSE(system_driver_in_process());
  }
#endif
}

}  // namespace
}  // namespace kiln::driver
