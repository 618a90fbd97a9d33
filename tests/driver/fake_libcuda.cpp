// A stand-in for a CUDA 12+ libcuda.so.1, loaded through KILN_LIBCUDA, so that the loader's whole path runs
// without a GPU. Like the real driver it exports cuGetProcAddress_v2 and hands out everything else only
// through it, and only for the ABI version cudaTypedefs.h names: a loader asking for another version gets
// a null pointer, as from a driver that lacks that ABI. Behaviour is steered by environment variables,
// read on every call because the loader keeps the library loaded across tests:
//   KILN_FAKE_HIDE=<symbol>    cuGetProcAddress answers CUDA_SUCCESS with a null pointer for it
//   KILN_FAKE_PROC_RESULT=<n>  cuGetProcAddress fails with n (34: behave like the toolkit's stub)
//   KILN_FAKE_INIT_RESULT=<n>  cuInit returns n
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using CUresult = int;
constexpr CUresult k_success = 0;
constexpr CUresult k_invalid_value = 1;
constexpr CUresult k_not_found = 500;
constexpr CUresult k_invalid_ptx = 218;

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? std::atoi(value) : fallback;
}

// Recognisable handles; the tests compare against the same numbers.
void* handle(std::uintptr_t value) { return reinterpret_cast<void*>(value); }
void* g_current_context = nullptr;

CUresult cu_init(unsigned int flags) { return flags != 0 ? k_invalid_value : env_int("KILN_FAKE_INIT_RESULT", 0); }
CUresult cu_driver_get_version(int* version) { *version = 12080; return k_success; }
CUresult cu_device_get_count(int* count) { *count = 1; return k_success; }
CUresult cu_device_get(int* device, int ordinal) { *device = ordinal; return ordinal == 0 ? k_success : 101; }
CUresult cu_device_get_attribute(int* value, int attribute, int device) {
  if (device != 0) return 101;
  *value = attribute == 75 ? 9 : attribute == 76 ? 0 : -1;
  return *value < 0 ? k_invalid_value : k_success;
}
CUresult cu_ctx_get_current(void** context) { *context = g_current_context; return k_success; }
CUresult cu_ctx_set_current(void* context) { g_current_context = context; return k_success; }
CUresult cu_ctx_get_device(int* device) { *device = 0; return g_current_context != nullptr ? k_success : 201; }
CUresult cu_primary_ctx_retain(void** context, int device) { *context = handle(0xC0); return device == 0 ? 0 : 101; }

// The loader must pass the error log buffer and its size by value in the slots, and no library options.
// "bad" images behave like PTX that does not compile on driver 580 (measured on an H200, LAZY and EAGER):
// the load succeeds, the log and its used size (with the NUL) are written during the call, and
// cuLibraryGetKernel fails with CUDA_ERROR_INVALID_PTX.
CUresult cu_library_load_data(void** library, const void* code, int* options, void** values, unsigned count,
                              int* library_options, void** library_values, unsigned library_count) {
  if (library_options != nullptr || library_values != nullptr || library_count != 0) return k_invalid_value;
  const char* image = static_cast<const char*>(code);
  const bool bad = std::strncmp(image, "bad", 3) == 0;
  if (count == 2) {
    if (options[0] != 5 || options[1] != 6 || reinterpret_cast<std::uintptr_t>(values[1]) != 16 * 1024) {
      return k_invalid_value;
    }
    std::size_t used = 0;
    if (std::strcmp(image, "bad short") == 0) {
      std::memcpy(values[0], "0123456789", 10);  // more text than the used size says, and no NUL
      used = 4;
    } else if (bad) {
      const char* log = "\n  ptxas: line 1: syntax error \n\n";
      used = std::strlen(log) + 1;
      std::memcpy(values[0], log, used);
    }
    values[1] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(used));
  } else if (count != 0) {
    return k_invalid_value;
  }
  *library = handle(bad ? 0xBAD : 0x11B);
  return k_success;
}
CUresult cu_library_unload(void* library) {
  return library == handle(0x11B) || library == handle(0xBAD) ? k_success : k_invalid_value;
}
CUresult cu_library_get_kernel(void** kernel, void* library, const char* name) {
  if (library == handle(0xBAD)) return k_invalid_ptx;
  if (library != handle(0x11B)) return k_invalid_value;
  *kernel = handle(0x4E);
  return std::strcmp(name, "probe") == 0 ? k_success : k_not_found;
}
CUresult cu_library_get_global(std::uint64_t* pointer, std::size_t* bytes, void* library, const char* name) {
  if (library != handle(0x11B) || std::strcmp(name, "counter") != 0) return k_not_found;
  *pointer = 0xD000;
  *bytes = 4;
  return k_success;
}
CUresult cu_kernel_get_function(void** function, void* kernel) {
  *function = handle(0xF0);
  return kernel == handle(0x4E) && g_current_context != nullptr ? k_success : 201;
}
CUresult cu_kernel_set_attribute(int attribute, int value, void* kernel, int device) {
  return attribute == 8 && value == 1024 && kernel == handle(0x4E) && device == 0 ? k_success : k_invalid_value;
}
CUresult cu_launch_kernel(void* function, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned shared, void* stream, void** params, void** extra) {
  const bool expected = function == handle(0xF0) && gx == 1 && gy == 2 && gz == 3 && bx == 4 && by == 5 &&
                        bz == 6 && shared == 7 && stream == nullptr && params != nullptr && extra == nullptr;
  return expected ? k_success : k_invalid_value;
}
// cuLaunchKernelEx: the config as cuda.h lays it out (offsets from cuda.h 13.0), with one attribute,
// cooperative (id 2) = 1, at offset 8 of a 72-byte CUlaunchAttribute.
CUresult cu_launch_kernel_ex(const void* config, void* function, void** params, void** extra) {
  const auto* bytes = static_cast<const unsigned char*>(config);
  unsigned dims[7];
  std::memcpy(dims, bytes, sizeof dims);
  void* stream = nullptr;
  const unsigned char* attrs = nullptr;
  unsigned count = 0;
  std::memcpy(&stream, bytes + 32, sizeof stream);
  std::memcpy(&attrs, bytes + 40, sizeof attrs);
  std::memcpy(&count, bytes + 48, sizeof count);
  int id = 0, value = 0;
  if (count == 1 && attrs != nullptr) {
    std::memcpy(&id, attrs, sizeof id);
    std::memcpy(&value, attrs + 8, sizeof value);
  }
  const bool expected = function == handle(0xF0) && dims[0] == 1 && dims[1] == 2 && dims[2] == 3 && dims[3] == 4 &&
                        dims[4] == 5 && dims[5] == 6 && dims[6] == 7 && stream == handle(0x5) && id == 2 &&
                        value == 1 && params != nullptr && extra == nullptr;
  return expected ? k_success : k_invalid_value;
}
CUresult cu_kernel_get_attribute(int* value, int attribute, void* kernel, int device) {
  *value = 32;  // registers
  return attribute == 4 && kernel == handle(0x4E) && device == 0 ? k_success : k_invalid_value;
}
CUresult cu_occupancy_max_active_blocks(int* blocks, void* function, int block_size, std::size_t shared) {
  *blocks = 6;
  return function == handle(0xF0) && block_size == 256 && shared == 1024 ? k_success : k_invalid_value;
}
CUresult cu_occupancy_max_potential_block_size(int* min_grid, int* block, void* function,
                                               std::size_t (*to_shared)(int), std::size_t shared, int limit) {
  *min_grid = 264;
  *block = 512;
  return function == handle(0xF0) && to_shared == nullptr && shared == 2048 && limit == 512 ? k_success
                                                                                             : k_invalid_value;
}
CUresult cu_get_error_name(CUresult error, const char** name) {
  switch (error) {
  case 0: *name = "CUDA_SUCCESS"; return k_success;
  case 100: *name = "CUDA_ERROR_NO_DEVICE"; return k_success;
  case 218: *name = "CUDA_ERROR_INVALID_PTX"; return k_success;
  default: *name = nullptr; return k_invalid_value;
  }
}

struct EntryPoint {
  const char* name;
  int version;  // the _v<N> of cudaTypedefs.h's PFN_<name>_v<N> for the signature above
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
cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version, std::uint64_t flags, int* status) {
  *pfn = nullptr;
  *status = 1;  // CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND
  if (const CUresult forced = env_int("KILN_FAKE_PROC_RESULT", 0); forced != k_success) return forced;
  if (flags != 0) return k_invalid_value;
  const char* hidden = std::getenv("KILN_FAKE_HIDE");
  if (hidden != nullptr && std::strcmp(hidden, symbol) == 0) return k_success;
  for (const EntryPoint& entry : k_entry_points) {
    if (std::strcmp(entry.name, symbol) != 0) continue;
    if (entry.version != cuda_version) {
      *status = 2;  // CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT: stands for "not the ABI you meant"
      return k_success;
    }
    *pfn = entry.function;
    *status = 0;
    return k_success;
  }
  return k_success;
}
