// The real driver behind DriverApi: a table of entry points taken from libcuda with cuGetProcAddress,
// and the DriverApi implementation that forwards to them. load_system_driver() fills the table.
#pragma once

#include "driver/driver_api.hpp"

#include <cstdint>
#include <memory>

namespace kiln::driver {

// Pointer types written from cuda.h 13.0 and named after cudaTypedefs.h's PFN_<name>_v<ABI>: the ABI
// number in the name is the cudaVersion that cuGetProcAddress must be asked for, because one name can
// have several ABIs (cuCtxGetDevice_v13000 takes a context; cuLaunchKernel_v7000_ptsz is per-thread).
// Enums (CUdevice_attribute, CUjit_option, CUlibraryOption, ...) are int-sized on every ABI CUDA runs on.
using PFN_cuGetProcAddress_v12000 = CUresult (*)(const char* symbol, void** pfn, int cuda_version,
                                                 std::uint64_t flags, int* symbol_status);
using PFN_cuInit_v2000 = CUresult (*)(unsigned int flags);
using PFN_cuDriverGetVersion_v2020 = CUresult (*)(int* version);
using PFN_cuDeviceGetCount_v2000 = CUresult (*)(int* count);
using PFN_cuDeviceGet_v2000 = CUresult (*)(CUdevice* device, int ordinal);
using PFN_cuDeviceGetAttribute_v2000 = CUresult (*)(int* value, int attribute, CUdevice device);
using PFN_cuCtxGetCurrent_v4000 = CUresult (*)(CUcontext* context);
using PFN_cuCtxSetCurrent_v4000 = CUresult (*)(CUcontext context);
using PFN_cuCtxGetDevice_v2000 = CUresult (*)(CUdevice* device);
using PFN_cuDevicePrimaryCtxRetain_v7000 = CUresult (*)(CUcontext* context, CUdevice device);
using PFN_cuLibraryLoadData_v12000 = CUresult (*)(CUlibrary* library, const void* code, int* jit_options,
                                                  void** jit_values, unsigned int jit_count,
                                                  int* library_options, void** library_values,
                                                  unsigned int library_count);
using PFN_cuLibraryUnload_v12000 = CUresult (*)(CUlibrary library);
using PFN_cuLibraryGetKernel_v12000 = CUresult (*)(CUkernel* kernel, CUlibrary library, const char* name);
using PFN_cuLibraryGetGlobal_v12000 = CUresult (*)(CUdeviceptr* pointer, std::size_t* bytes,
                                                   CUlibrary library, const char* name);
using PFN_cuKernelGetFunction_v12000 = CUresult (*)(CUfunction* function, CUkernel kernel);
using PFN_cuKernelSetAttribute_v12000 = CUresult (*)(int attribute, int value, CUkernel kernel,
                                                     CUdevice device);
using PFN_cuLaunchKernel_v4000 = CUresult (*)(CUfunction function, unsigned grid_x, unsigned grid_y,
                                              unsigned grid_z, unsigned block_x, unsigned block_y,
                                              unsigned block_z, unsigned shared_bytes, CUstream stream,
                                              void** params, void** extra);
using PFN_cuGetErrorName_v6000 = CUresult (*)(CUresult error, const char** name);
using PFN_cuLaunchKernelEx_v11060 = CUresult (*)(const CUlaunchConfig* config, CUfunction function, void** params,
                                                 void** extra);
using PFN_cuKernelGetAttribute_v12000 = CUresult (*)(int* value, int attribute, CUkernel kernel, CUdevice device);
using PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 = CUresult (*)(int* blocks, CUfunction function,
                                                                           int block_size,
                                                                           std::size_t dynamic_shared_bytes);
// The callback (CUoccupancyB2DSize) is always passed as null: Kiln gives one dynamic shared size.
using PFN_cuOccupancyMaxPotentialBlockSize_v6050 = CUresult (*)(int* min_grid_size, int* block_size,
                                                                CUfunction function,
                                                                std::size_t (*block_size_to_shared)(int),
                                                                std::size_t dynamic_shared_bytes,
                                                                int block_size_limit);

// Every entry point the runtime calls. Those up to get_error_name are required (each exists in any
// driver >= 12.0); the rest are optional, null when the driver lacks them, and only the calls that
// need them fail (with CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER).
struct EntryPoints {
  PFN_cuInit_v2000 init = nullptr;
  PFN_cuDriverGetVersion_v2020 driver_get_version = nullptr;
  PFN_cuDeviceGetCount_v2000 device_get_count = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetAttribute_v2000 device_get_attribute = nullptr;
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
  PFN_cuCtxSetCurrent_v4000 ctx_set_current = nullptr;
  PFN_cuCtxGetDevice_v2000 ctx_get_device = nullptr;
  PFN_cuDevicePrimaryCtxRetain_v7000 primary_ctx_retain = nullptr;
  PFN_cuLibraryLoadData_v12000 library_load_data = nullptr;
  PFN_cuLibraryUnload_v12000 library_unload = nullptr;
  PFN_cuLibraryGetKernel_v12000 library_get_kernel = nullptr;
  PFN_cuLibraryGetGlobal_v12000 library_get_global = nullptr;
  PFN_cuKernelGetFunction_v12000 kernel_get_function = nullptr;
  PFN_cuKernelSetAttribute_v12000 kernel_set_attribute = nullptr;
  PFN_cuLaunchKernel_v4000 launch_kernel = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  // Optional.
  PFN_cuLaunchKernelEx_v11060 launch_kernel_ex = nullptr;
  PFN_cuKernelGetAttribute_v12000 kernel_get_attribute = nullptr;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 occupancy_max_active_blocks = nullptr;
  PFN_cuOccupancyMaxPotentialBlockSize_v6050 occupancy_max_potential_block_size = nullptr;
};

// Size of the buffer that cuLibraryLoadData writes the JIT error log into.
inline constexpr std::size_t k_jit_error_log_bytes = 16 * 1024;

// Wraps resolved entry points; `library` is the dlopen handle, which the object keeps and never closes.
std::unique_ptr<DriverApi> make_system_driver(void* library, const EntryPoints& entry_points);

// "CUDA_ERROR_NO_DEVICE", or "CUDA error <n>" when the driver does not name it (or cannot be asked).
std::string cuda_error_name(PFN_cuGetErrorName_v6000 get_error_name, CUresult result);

}  // namespace kiln::driver
