// The CUDA driver as the runtime sees it: a small interface, so that the real driver (loaded with
// dlopen on first use) and a fake (in tests, without a GPU) are interchangeable. Each function
// mirrors one driver entry point and returns its CUresult.
#pragma once

#include "driver/cuda_types.hpp"

#include <cstddef>
#include <memory>
#include <string>

namespace kiln::driver {

class DriverApi {
public:
  virtual ~DriverApi() = default;

  virtual CUresult init() = 0;                                            // cuInit(0)
  virtual CUresult driver_get_version(int* version) = 0;                  // cuDriverGetVersion
  virtual CUresult device_get_count(int* count) = 0;                      // cuDeviceGetCount
  virtual CUresult device_get(CUdevice* device, int ordinal) = 0;         // cuDeviceGet
  virtual CUresult device_get_attribute(int* value, int attribute, CUdevice device) = 0;
  virtual CUresult ctx_get_current(CUcontext* context) = 0;              // cuCtxGetCurrent
  virtual CUresult ctx_set_current(CUcontext context) = 0;               // cuCtxSetCurrent
  virtual CUresult ctx_get_device(CUdevice* device) = 0;                  // cuCtxGetDevice (current context)
  virtual CUresult primary_ctx_retain(CUcontext* context, CUdevice device) = 0;
  // cuLibraryLoadData with the JIT error log captured into `error_log` (PTX that fails to compile).
  virtual CUresult library_load_data(CUlibrary* library, const void* image, std::string* error_log) = 0;
  virtual CUresult library_unload(CUlibrary library) = 0;
  virtual CUresult library_get_kernel(CUkernel* kernel, CUlibrary library, const char* name) = 0;
  virtual CUresult library_get_global(CUdeviceptr* pointer, std::size_t* bytes, CUlibrary library,
                                      const char* name) = 0;
  virtual CUresult kernel_get_function(CUfunction* function, CUkernel kernel) = 0;  // for the current context
  virtual CUresult kernel_set_attribute(int attribute, int value, CUkernel kernel, CUdevice device) = 0;
  virtual CUresult launch_kernel(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                 unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                                 CUstream stream, void** params, void** extra) = 0;
  // The calls below are optional entry points: a driver that lacks one (the real driver answers
  // cuGetProcAddress with no pointer) returns k_cuda_error_call_requires_newer_driver from it, so
  // that only the call that needs it fails, not the whole driver.
  // cuLaunchKernelEx (CUDA 11.6+), with a CUkernel cast to CUfunction as for launch_kernel.
  virtual CUresult launch_kernel_ex(const CUlaunchConfig& config, CUfunction function, void** params,
                                    void** extra) = 0;
  // cuKernelGetAttribute (CUDA 12.0+): a CUfunction_attribute of `kernel` on `device`.
  virtual CUresult kernel_get_attribute(int* value, int attribute, CUkernel kernel, CUdevice device) = 0;
  // cuOccupancyMaxActiveBlocksPerMultiprocessor (CUDA 6.5+).
  virtual CUresult occupancy_max_active_blocks(int* blocks, CUfunction function, int block_size,
                                               std::size_t dynamic_shared_bytes) = 0;
  // cuOccupancyMaxPotentialBlockSize (CUDA 6.5+) with no block-size-to-shared-memory callback: the
  // same `dynamic_shared_bytes` for every block size.
  virtual CUresult occupancy_max_potential_block_size(int* min_grid_size, int* block_size, CUfunction function,
                                                      std::size_t dynamic_shared_bytes, int block_size_limit) = 0;
  // "CUDA_ERROR_NO_BINARY_FOR_GPU" (cuGetErrorName), or a number if the driver does not know it.
  virtual std::string error_name(CUresult result) = 0;
};

// Why the system driver could not be used.
enum class DriverLoadFailure { none, no_library, stub_library, too_old, init_failed };

struct DriverLoad {
  std::unique_ptr<DriverApi> driver;     // set when usable
  DriverLoadFailure failure = DriverLoadFailure::none;
  CUresult init_result = k_cuda_success; // cuInit's result when failure == init_failed
  std::string message;                   // names the library (a failure: the file it was loaded from) and the reason
};

// Whether the driver library load_system_driver() would open is already loaded in this process
// (dlopen with RTLD_NOLOAD): the program uses CUDA already, so binding to the driver costs no load
// and cannot fail for want of a driver.
bool system_driver_in_process();

// Loads libcuda.so.1 (or $KILN_LIBCUDA) with dlopen and resolves every entry point through
// cuGetProcAddress_v2 with explicit ABI versions, then calls cuInit(0). Never throws.
DriverLoad load_system_driver();

}  // namespace kiln::driver
