// A libcuda.so.1 that answers every call at once and counts the calls: first_launch_cpu loads it
// through KILN_LIBCUDA, so that libkiln.so runs exactly the path it runs on a GPU machine (dlopen,
// cuGetProcAddress_v2 with the ABI versions cudaTypedefs.h names, cuInit, then the calls), and
// what a first launch takes is Kiln's own time. One device of compute capability 9.0, a context
// current on every thread (device 0's), every image loads and holds every kernel.
#include <atomic>
#include <cstdint>
#include <cstring>

namespace {

using CUresult = int;
constexpr CUresult k_success = 0;

std::atomic<unsigned long long> g_calls{0};
std::atomic<std::uintptr_t> g_next_handle{0x1000};

CUresult counted() {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  return k_success;
}
void* next_handle() { return reinterpret_cast<void*>(g_next_handle.fetch_add(16)); }
void* const k_context = reinterpret_cast<void*>(0xC0);

CUresult cu_init(unsigned) { return counted(); }
CUresult cu_driver_get_version(int* version) { *version = 13000; return counted(); }
CUresult cu_device_get_count(int* count) { *count = 1; return counted(); }
CUresult cu_device_get(int* device, int ordinal) { *device = ordinal; return ordinal == 0 ? counted() : 101; }
CUresult cu_device_get_attribute(int* value, int attribute, int) {
  *value = attribute == 75 ? 9 : attribute == 97 ? 232448 : 0;  // major 9, minor 0, not integrated
  return counted();
}
CUresult cu_ctx_get_current(void** context) { *context = k_context; return counted(); }
CUresult cu_ctx_set_current(void*) { return counted(); }
CUresult cu_ctx_get_device(int* device) { *device = 0; return counted(); }
CUresult cu_primary_ctx_retain(void** context, int) { *context = k_context; return counted(); }
CUresult cu_library_load_data(void** library, const void*, int*, void**, unsigned, int*, void**, unsigned) {
  *library = next_handle();
  return counted();
}
CUresult cu_library_unload(void*) { return counted(); }
CUresult cu_library_get_kernel(void** kernel, void*, const char*) { *kernel = next_handle(); return counted(); }
CUresult cu_library_get_global(std::uint64_t* pointer, std::size_t* bytes, void*, const char*) {
  *pointer = 0xD000;
  *bytes = 4;
  return counted();
}
CUresult cu_kernel_get_function(void** function, void* kernel) { *function = kernel; return counted(); }
CUresult cu_kernel_set_attribute(int, int, void*, int) { return counted(); }
CUresult cu_launch_kernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                          void**) {
  return counted();
}
CUresult cu_launch_kernel_ex(const void*, void*, void**, void**) { return counted(); }
CUresult cu_kernel_get_attribute(int* value, int, void*, int) { *value = 0; return counted(); }
CUresult cu_occupancy_max_active_blocks(int* blocks, void*, int, std::size_t) { *blocks = 1; return counted(); }
CUresult cu_occupancy_max_potential_block_size(int* min_grid, int* block, void*, std::size_t (*)(int), std::size_t,
                                               int) {
  *min_grid = 1;
  *block = 256;
  return counted();
}
CUresult cu_get_error_name(CUresult, const char** name) {
  *name = "CUDA_ERROR_NULL_LIBCUDA";
  return k_success;
}

struct EntryPoint {
  const char* name;
  int version;  // the _v<N> of cudaTypedefs.h's PFN_<name>_v<N>, as load_system_driver asks for it
  void* function;
};

template <class Function>
void* address(Function function) {
  return reinterpret_cast<void*>(function);
}

const EntryPoint k_entry_points[] = {
    {"cuInit", 2000, address(cu_init)},
    {"cuDriverGetVersion", 2020, address(cu_driver_get_version)},
    {"cuDeviceGetCount", 2000, address(cu_device_get_count)},
    {"cuDeviceGet", 2000, address(cu_device_get)},
    {"cuDeviceGetAttribute", 2000, address(cu_device_get_attribute)},
    {"cuCtxGetCurrent", 4000, address(cu_ctx_get_current)},
    {"cuCtxSetCurrent", 4000, address(cu_ctx_set_current)},
    {"cuCtxGetDevice", 2000, address(cu_ctx_get_device)},
    {"cuDevicePrimaryCtxRetain", 7000, address(cu_primary_ctx_retain)},
    {"cuLibraryLoadData", 12000, address(cu_library_load_data)},
    {"cuLibraryUnload", 12000, address(cu_library_unload)},
    {"cuLibraryGetKernel", 12000, address(cu_library_get_kernel)},
    {"cuLibraryGetGlobal", 12000, address(cu_library_get_global)},
    {"cuKernelGetFunction", 12000, address(cu_kernel_get_function)},
    {"cuKernelSetAttribute", 12000, address(cu_kernel_set_attribute)},
    {"cuLaunchKernel", 4000, address(cu_launch_kernel)},
    {"cuGetErrorName", 6000, address(cu_get_error_name)},
    {"cuLaunchKernelEx", 11060, address(cu_launch_kernel_ex)},
    {"cuKernelGetAttribute", 12000, address(cu_kernel_get_attribute)},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, address(cu_occupancy_max_active_blocks)},
    {"cuOccupancyMaxPotentialBlockSize", 6050, address(cu_occupancy_max_potential_block_size)},
};

}  // namespace

extern "C" __attribute__((visibility("default"))) CUresult
cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version, std::uint64_t, int* status) {
  *pfn = nullptr;
  *status = 1;  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
  for (const EntryPoint& entry : k_entry_points) {
    if (std::strcmp(entry.name, symbol) != 0 || entry.version != cuda_version) continue;
    *pfn = entry.function;
    *status = 0;
    break;
  }
  return k_success;
}

// The driver calls made so far (cuGetProcAddress_v2 and cuGetErrorName not counted).
extern "C" __attribute__((visibility("default"))) unsigned long long kiln_null_libcuda_calls() {
  return g_calls.load(std::memory_order_relaxed);
}
