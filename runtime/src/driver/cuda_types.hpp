// The few CUDA Driver API types and constants the runtime uses, declared here so that the runtime
// builds without the CUDA toolkit (only the driver is needed, and only at run time). Values are
// those of cuda.h 13.0; the driver's ABI keeps them stable.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::driver {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = std::uint64_t;
struct CUctx_st;
using CUcontext = CUctx_st*;
struct CUlib_st;
using CUlibrary = CUlib_st*;
struct CUkern_st;
using CUkernel = CUkern_st*;
struct CUfunc_st;
using CUfunction = CUfunc_st*;
struct CUstream_st;
using CUstream = CUstream_st*;

inline constexpr CUresult k_cuda_success = 0;
inline constexpr CUresult k_cuda_error_invalid_value = 1;
inline constexpr CUresult k_cuda_error_out_of_memory = 2;
inline constexpr CUresult k_cuda_error_not_initialized = 3;
inline constexpr CUresult k_cuda_error_stub_library = 34;
inline constexpr CUresult k_cuda_error_call_requires_newer_driver = 36;
inline constexpr CUresult k_cuda_error_no_device = 100;
inline constexpr CUresult k_cuda_error_invalid_device = 101;
inline constexpr CUresult k_cuda_error_invalid_image = 200;
inline constexpr CUresult k_cuda_error_invalid_context = 201;
inline constexpr CUresult k_cuda_error_no_binary_for_gpu = 209;
inline constexpr CUresult k_cuda_error_invalid_ptx = 218;
inline constexpr CUresult k_cuda_error_unsupported_ptx_version = 222;
inline constexpr CUresult k_cuda_error_jit_compilation_disabled = 223;
inline constexpr CUresult k_cuda_error_not_found = 500;
inline constexpr CUresult k_cuda_error_context_is_destroyed = 709;
inline constexpr CUresult k_cuda_error_system_driver_mismatch = 803;
inline constexpr CUresult k_cuda_error_compat_not_supported_on_device = 804;

// CUdevice_attribute
inline constexpr int k_attribute_integrated = 18;
inline constexpr int k_attribute_compute_capability_major = 75;
inline constexpr int k_attribute_compute_capability_minor = 76;
inline constexpr int k_attribute_max_shared_memory_per_block_optin = 97;

// CUjit_option (values go in pointer-sized void* slots; outputs come back in the slot itself)
inline constexpr int k_jit_error_log_buffer = 5;
inline constexpr int k_jit_error_log_buffer_size_bytes = 6;

// cuGetProcAddress flags and CUdriverProcAddressQueryResult
inline constexpr std::uint64_t k_get_proc_address_default = 0;
inline constexpr int k_get_proc_address_success = 0;
inline constexpr int k_get_proc_address_symbol_not_found = 1;
inline constexpr int k_get_proc_address_version_not_sufficient = 2;

// CUfunction_attribute
inline constexpr int k_function_attribute_max_threads_per_block = 0;
inline constexpr int k_function_attribute_shared_size_bytes = 1;
inline constexpr int k_function_attribute_const_size_bytes = 2;
inline constexpr int k_function_attribute_local_size_bytes = 3;
inline constexpr int k_function_attribute_num_regs = 4;
inline constexpr int k_function_attribute_ptx_version = 5;
inline constexpr int k_function_attribute_binary_version = 6;
inline constexpr int k_function_attribute_cache_mode_ca = 7;
inline constexpr int k_function_attribute_max_dynamic_shared_size_bytes = 8;
inline constexpr int k_function_attribute_preferred_shared_memory_carveout = 9;
inline constexpr int k_function_attribute_cluster_size_must_be_set = 10;
inline constexpr int k_function_attribute_required_cluster_width = 11;
inline constexpr int k_function_attribute_required_cluster_height = 12;
inline constexpr int k_function_attribute_required_cluster_depth = 13;
inline constexpr int k_function_attribute_non_portable_cluster_size_allowed = 14;
inline constexpr int k_function_attribute_cluster_scheduling_policy_preference = 15;

// CUlaunchAttributeID: the attributes Kiln passes to cuLaunchKernelEx.
inline constexpr int k_launch_attribute_cooperative = 2;
inline constexpr int k_launch_attribute_cluster_dimension = 4;
inline constexpr int k_launch_attribute_priority = 8;

// CUlaunchAttribute: a 4-byte id, 4 bytes of padding, then CUlaunchAttributeValue, a union padded to
// 64 bytes (8-byte aligned: some members hold pointers). Kiln writes only the int and dim3 members.
struct CUlaunchAttribute {
  int id = 0;
  char pad[4] = {};
  union Value {
    char pad[64];
    int cooperative;                  // k_launch_attribute_cooperative: nonzero for a cooperative launch
    int priority;                     // k_launch_attribute_priority
    struct {
      unsigned int x, y, z;
    } cluster_dim;                    // k_launch_attribute_cluster_dimension
    void* align;                      // the union's alignment in cuda.h
  } value = {};
};
static_assert(sizeof(CUlaunchAttribute) == 72 && alignof(CUlaunchAttribute) == 8 &&
                  offsetof(CUlaunchAttribute, value) == 8,
              "as cuda.h 13.0 lays it out (checked against it with offsetof)");

// CUlaunchConfig, as cuda.h 13.0 lays it out.
struct CUlaunchConfig {
  unsigned int grid_dim_x = 1, grid_dim_y = 1, grid_dim_z = 1;
  unsigned int block_dim_x = 1, block_dim_y = 1, block_dim_z = 1;
  unsigned int shared_mem_bytes = 0;
  CUstream stream = nullptr;
  CUlaunchAttribute* attrs = nullptr;
  unsigned int num_attrs = 0;
};
static_assert(sizeof(CUlaunchConfig) == 56 && offsetof(CUlaunchConfig, stream) == 32 &&
                  offsetof(CUlaunchConfig, num_attrs) == 48,
              "as cuda.h 13.0 lays it out on LP64 (checked against it with offsetof)");

}  // namespace kiln::driver
