// kiln_kernel_*: parameters, launch, and the CUkernel handle.
#include "api/abi_guard.hpp"

using kiln::api::from_handle;
using kiln::api::guarded;
using kiln::api::null_argument;
using kiln::Status;

extern "C" {

KILN_API kiln_status kiln_kernel_params(const kiln_kernel* kernel, size_t* count, size_t* sizes, size_t* offsets,
                                        size_t capacity) {
  if (count) *count = 0;
  return guarded(kiln::api::kernel_owner(kernel), "kiln_kernel_params", [&]() -> Status {
    if (!kernel) return null_argument("kiln_kernel_params", "kernel");
    return from_handle(kernel)->params(count, sizes, offsets, capacity);
  });
}

KILN_API const char* kiln_kernel_name(const kiln_kernel* kernel) {
  return kernel ? from_handle(kernel)->name() : nullptr;
}

KILN_API const char* kiln_kernel_lowered_name(const kiln_kernel* kernel) {
  return kernel ? from_handle(kernel)->lowered_name() : nullptr;
}

KILN_API kiln_status kiln_kernel_launch(kiln_kernel* kernel, kiln_dim3 grid, kiln_dim3 block,
                                        uint32_t shared_memory_bytes, void* stream, void** args, size_t arg_count) {
  return guarded(kiln::api::kernel_owner(kernel), "kiln_kernel_launch", [&]() -> Status {
    if (!kernel) return null_argument("kiln_kernel_launch", "kernel");
    kiln::core::LaunchShape shape;
    shape.grid[0] = grid.x;
    shape.grid[1] = grid.y;
    shape.grid[2] = grid.z;
    shape.block[0] = block.x;
    shape.block[1] = block.y;
    shape.block[2] = block.z;
    shape.shared_memory_bytes = shared_memory_bytes;
    return from_handle(kernel)->launch(shape, stream, args, arg_count);
  });
}

KILN_API kiln_status kiln_kernel_handle(kiln_kernel* kernel, void** cu_kernel) {
  if (cu_kernel) *cu_kernel = nullptr;
  return guarded(kiln::api::kernel_owner(kernel), "kiln_kernel_handle", [&]() -> Status {
    if (!kernel) return null_argument("kiln_kernel_handle", "kernel");
    if (!cu_kernel) return null_argument("kiln_kernel_handle", "cu_kernel");
    return from_handle(kernel)->handle(*cu_kernel);
  });
}

}  // extern "C"
