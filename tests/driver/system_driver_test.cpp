// The loaded driver's calls: each DriverApi method reaches its entry point with its arguments (checked by
// the fake driver), the JIT error log comes back through cuLibraryLoadData's option slots, and error
// names fall back to numbers. SystemDriverOnGpu runs the same against the machine's real driver and
// skips where there is none.
#include "driver/driver_api.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace kiln::driver {
namespace {

using test::contains;
using test::ScopedEnv;

template <class Handle>
Handle handle(std::uintptr_t value) {
  return reinterpret_cast<Handle>(value);
}

class SystemDriver : public ::testing::Test {
protected:
  void SetUp() override {
    ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
    DriverLoad load = load_system_driver();
    ASSERT_EQ(load.failure, DriverLoadFailure::none) << load.message;
    m_driver = std::move(load.driver);
  }
  std::unique_ptr<DriverApi> m_driver;
};

TEST_F(SystemDriver, ForwardsEachCall) {
  DriverApi& driver = *m_driver;
  EXPECT_EQ(driver.init(), k_cuda_success);
  int version = 0;
  EXPECT_EQ(driver.driver_get_version(&version), k_cuda_success);
  EXPECT_EQ(version, 12080);
  int count = 0;
  EXPECT_EQ(driver.device_get_count(&count), k_cuda_success);
  EXPECT_EQ(count, 1);
  CUdevice device = -1;
  EXPECT_EQ(driver.device_get(&device, 0), k_cuda_success);
  EXPECT_EQ(device, 0);
  int major = 0;
  EXPECT_EQ(driver.device_get_attribute(&major, k_attribute_compute_capability_major, device), k_cuda_success);
  EXPECT_EQ(major, 9);

  CUcontext context = nullptr;
  EXPECT_EQ(driver.primary_ctx_retain(&context, device), k_cuda_success);
  EXPECT_EQ(context, handle<CUcontext>(0xC0));
  EXPECT_EQ(driver.ctx_set_current(context), k_cuda_success);
  CUcontext current = nullptr;
  EXPECT_EQ(driver.ctx_get_current(&current), k_cuda_success);
  EXPECT_EQ(current, context);
  EXPECT_EQ(driver.ctx_get_device(&device), k_cuda_success);

  CUlibrary library = nullptr;
  ASSERT_EQ(driver.library_load_data(&library, "image", nullptr), k_cuda_success);
  CUkernel kernel = nullptr;
  EXPECT_EQ(driver.library_get_kernel(&kernel, library, "probe"), k_cuda_success);
  EXPECT_EQ(driver.library_get_kernel(&kernel, library, "absent"), k_cuda_error_not_found);
  CUdeviceptr global = 0;
  std::size_t bytes = 0;
  EXPECT_EQ(driver.library_get_global(&global, &bytes, library, "counter"), k_cuda_success);
  EXPECT_EQ(global, 0xD000u);
  EXPECT_EQ(bytes, 4u);
  CUfunction function = nullptr;
  EXPECT_EQ(driver.kernel_get_function(&function, kernel), k_cuda_success);
  EXPECT_EQ(driver.kernel_set_attribute(k_function_attribute_max_dynamic_shared_size_bytes, 1024, kernel, device),
            k_cuda_success);
  int value = 0;
  void* params[] = {&value};
  EXPECT_EQ(driver.launch_kernel(function, 1, 2, 3, 4, 5, 6, 7, nullptr, params, nullptr), k_cuda_success);
  EXPECT_EQ(driver.library_unload(library), k_cuda_success);
  EXPECT_EQ(driver.ctx_set_current(nullptr), k_cuda_success);
}

// The optional entry points: launch attributes laid out as cuda.h has them, kernel attributes and
// occupancy (the fake checks every argument).
TEST_F(SystemDriver, ForwardsTheOptionalCalls) {
  const CUkernel kernel = handle<CUkernel>(0x4E);
  const CUfunction function = handle<CUfunction>(0xF0);
  CUlaunchAttribute cooperative;
  cooperative.id = k_launch_attribute_cooperative;
  cooperative.value.cooperative = 1;
  CUlaunchConfig config;
  config.grid_dim_x = 1, config.grid_dim_y = 2, config.grid_dim_z = 3;
  config.block_dim_x = 4, config.block_dim_y = 5, config.block_dim_z = 6;
  config.shared_mem_bytes = 7;
  config.stream = handle<CUstream>(0x5);
  config.attrs = &cooperative;
  config.num_attrs = 1;
  int value = 0;
  void* params[] = {&value};
  EXPECT_EQ(m_driver->launch_kernel_ex(config, function, params, nullptr), k_cuda_success);
  config.num_attrs = 0;  // the fake wants the attribute: without it the call is refused
  EXPECT_EQ(m_driver->launch_kernel_ex(config, function, params, nullptr), k_cuda_error_invalid_value);

  EXPECT_EQ(m_driver->kernel_get_attribute(&value, k_function_attribute_num_regs, kernel, 0), k_cuda_success);
  EXPECT_EQ(value, 32);
  EXPECT_EQ(m_driver->occupancy_max_active_blocks(&value, function, 256, 1024), k_cuda_success);
  EXPECT_EQ(value, 6);
  int min_grid = 0, block = 0;
  EXPECT_EQ(m_driver->occupancy_max_potential_block_size(&min_grid, &block, function, 2048, 512), k_cuda_success);
  EXPECT_EQ(min_grid, 264);
  EXPECT_EQ(block, 512);
}

// A driver without an optional entry point still loads; only the call that needs it fails, with the
// driver's own code for "this driver is too old for that call".
TEST(SystemDriverOptional, MissingLaunchKernelExFailsOnlyThatCall) {
  ScopedEnv env("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  ScopedEnv hide("KILN_FAKE_HIDE", "cuLaunchKernelEx");
  DriverLoad load = load_system_driver();
  ASSERT_EQ(load.failure, DriverLoadFailure::none) << load.message;
  CUlaunchConfig config;
  EXPECT_EQ(load.driver->launch_kernel_ex(config, handle<CUfunction>(0xF0), nullptr, nullptr),
            k_cuda_error_call_requires_newer_driver);
  int registers = 0;
  EXPECT_EQ(load.driver->kernel_get_attribute(&registers, k_function_attribute_num_regs, handle<CUkernel>(0x4E), 0),
            k_cuda_success);
}

TEST_F(SystemDriver, LibraryLoadCapturesTheTrimmedErrorLogEvenWhenTheLoadSucceeds) {
  // Like driver 580: PTX that does not compile still loads; the log tells, and cuLibraryGetKernel fails.
  CUlibrary library = nullptr;
  std::string log;
  ASSERT_EQ(m_driver->library_load_data(&library, "bad", &log), k_cuda_success);
  EXPECT_EQ(log, "ptxas: line 1: syntax error");
  CUkernel kernel = nullptr;
  EXPECT_EQ(m_driver->library_get_kernel(&kernel, library, "probe"), k_cuda_error_invalid_ptx);
  EXPECT_EQ(m_driver->library_unload(library), k_cuda_success);
}

TEST_F(SystemDriver, LibraryLoadReadsOnlyTheLogSizeTheDriverReturns) {
  // The driver writes the used size into the size option's slot itself.
  CUlibrary library = nullptr;
  std::string log;
  EXPECT_EQ(m_driver->library_load_data(&library, "bad short", &log), k_cuda_success);
  EXPECT_EQ(log, "0123");
}

TEST_F(SystemDriver, LibraryLoadClearsAnEarlierLog) {
  CUlibrary library = nullptr;
  std::string log = "stale";
  EXPECT_EQ(m_driver->library_load_data(&library, "image", &log), k_cuda_success);
  EXPECT_EQ(log, "");
  EXPECT_EQ(library, handle<CUlibrary>(0x11B));
}

TEST_F(SystemDriver, ErrorNameFallsBackToTheNumber) {
  EXPECT_EQ(m_driver->error_name(k_cuda_error_no_device), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(m_driver->error_name(12345), "CUDA error 12345");
}

// Needs a GPU and its driver; skips elsewhere (the GPU-labelled suite covers real launches).
TEST(SystemDriverOnGpu, InitsAndReadsTheDeviceAndLoadsPtx) {
  ScopedEnv env("KILN_LIBCUDA", nullptr);
  DriverLoad load = load_system_driver();
  // Skip only where there is no driver or no device; a stub, a missing entry point or another init
  // failure on a machine with a driver is a loader bug.
  const bool no_gpu = load.failure == DriverLoadFailure::no_library ||
                      (load.failure == DriverLoadFailure::init_failed && load.init_result == k_cuda_error_no_device);
  if (no_gpu) GTEST_SKIP() << "no driver or device: " << load.message;
  ASSERT_EQ(load.failure, DriverLoadFailure::none) << load.message;
  DriverApi& driver = *load.driver;
  int version = 0;
  ASSERT_EQ(driver.driver_get_version(&version), k_cuda_success);
  EXPECT_GE(version, 12000);
  CUdevice device = -1;
  ASSERT_EQ(driver.device_get(&device, 0), k_cuda_success);
  int major = 0;
  int minor = -1;
  EXPECT_EQ(driver.device_get_attribute(&major, k_attribute_compute_capability_major, device), k_cuda_success);
  EXPECT_EQ(driver.device_get_attribute(&minor, k_attribute_compute_capability_minor, device), k_cuda_success);
  EXPECT_GE(major, 5);
  EXPECT_GE(minor, 0);

  CUcontext context = nullptr;
  ASSERT_EQ(driver.primary_ctx_retain(&context, device), k_cuda_success);
  ASSERT_EQ(driver.ctx_set_current(context), k_cuda_success);
  CUdevice current_device = -1;
  EXPECT_EQ(driver.ctx_get_device(&current_device), k_cuda_success);
  EXPECT_EQ(current_device, device);

  const char* ptx = ".version 7.0\n.target sm_50\n.address_size 64\n"
                    ".global .align 4 .u32 counter;\n"
                    ".visible .entry probe(.param .u32 value)\n{\n.reg .b32 %r<2>;\n"
                    "ld.param.u32 %r1, [value];\nst.global.u32 [counter], %r1;\nret;\n}\n";
  CUlibrary library = nullptr;
  std::string log = "stale";
  ASSERT_EQ(driver.library_load_data(&library, ptx, &log), k_cuda_success) << log;
  EXPECT_EQ(log, "");
  CUkernel kernel = nullptr;
  ASSERT_EQ(driver.library_get_kernel(&kernel, library, "probe"), k_cuda_success);
  CUdeviceptr global = 0;
  std::size_t bytes = 0;
  EXPECT_EQ(driver.library_get_global(&global, &bytes, library, "counter"), k_cuda_success);
  EXPECT_EQ(bytes, 4u);
  CUfunction function = nullptr;
  ASSERT_EQ(driver.kernel_get_function(&function, kernel), k_cuda_success);
  EXPECT_EQ(driver.kernel_set_attribute(k_function_attribute_max_dynamic_shared_size_bytes, 1024, kernel, device),
            k_cuda_success);
  unsigned value = 7;
  void* params[] = {&value};
  EXPECT_EQ(driver.launch_kernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr), k_cuda_success);
  EXPECT_EQ(driver.library_unload(library), k_cuda_success);

  // Driver 580 loads PTX that does not compile with CUDA_SUCCESS, writes the log during the load, and
  // fails cuLibraryGetKernel; accept a driver that fails the load itself too.
  const char* broken = ".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry broken()\n{\nnot_an_op;\n}\n";
  const CUresult loaded = driver.library_load_data(&library, broken, &log);
  EXPECT_TRUE(contains(log, "not_an_op"));
  if (loaded == k_cuda_success) {
    EXPECT_EQ(driver.library_get_kernel(&kernel, library, "broken"), k_cuda_error_invalid_ptx);
    EXPECT_EQ(driver.library_unload(library), k_cuda_success);
  } else {
    EXPECT_EQ(loaded, k_cuda_error_invalid_ptx);
  }
  EXPECT_EQ(driver.error_name(k_cuda_error_invalid_ptx), "CUDA_ERROR_INVALID_PTX");
}

}  // namespace
}  // namespace kiln::driver
