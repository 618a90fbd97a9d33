// DriverApi over libcuda's entry points: each method forwards to one driver call, except
// library_load_data, which also captures the JIT error log.
#include "driver/system_driver.hpp"

#include <algorithm>
#include <new>

namespace kiln::driver {
namespace {

class SystemDriver final : public DriverApi {
public:
  SystemDriver(void* library, const EntryPoints& entry_points) : m_library(library), m_entry(entry_points) {}

  // Deliberately no dlclose(m_library). The runtime holds one driver for the process, and what the driver
  // handed out (primary contexts, CUlibrary handles, the driver's own threads and atexit handlers) can
  // outlive this object: unloading libcuda under them crashes at exit. The CUDA runtime never unloads
  // libcuda either; the handle is released when the process ends.
  ~SystemDriver() override = default;
  SystemDriver(const SystemDriver&) = delete;
  SystemDriver& operator=(const SystemDriver&) = delete;

  CUresult init() override { return m_entry.init(0); }
  CUresult driver_get_version(int* version) override { return m_entry.driver_get_version(version); }
  CUresult device_get_count(int* count) override { return m_entry.device_get_count(count); }
  CUresult device_get(CUdevice* device, int ordinal) override { return m_entry.device_get(device, ordinal); }
  CUresult device_get_attribute(int* value, int attribute, CUdevice device) override {
    return m_entry.device_get_attribute(value, attribute, device);
  }
  CUresult ctx_get_current(CUcontext* context) override { return m_entry.ctx_get_current(context); }
  CUresult ctx_set_current(CUcontext context) override { return m_entry.ctx_set_current(context); }
  CUresult ctx_get_device(CUdevice* device) override { return m_entry.ctx_get_device(device); }
  CUresult primary_ctx_retain(CUcontext* context, CUdevice device) override {
    return m_entry.primary_ctx_retain(context, device);
  }
  CUresult library_load_data(CUlibrary* library, const void* image, std::string* error_log) override;
  CUresult library_unload(CUlibrary library) override { return m_entry.library_unload(library); }
  CUresult library_get_kernel(CUkernel* kernel, CUlibrary library, const char* name) override {
    return m_entry.library_get_kernel(kernel, library, name);
  }
  CUresult library_get_global(CUdeviceptr* pointer, std::size_t* bytes, CUlibrary library,
                              const char* name) override {
    return m_entry.library_get_global(pointer, bytes, library, name);
  }
  CUresult kernel_get_function(CUfunction* function, CUkernel kernel) override {
    return m_entry.kernel_get_function(function, kernel);
  }
  CUresult kernel_set_attribute(int attribute, int value, CUkernel kernel, CUdevice device) override {
    return m_entry.kernel_set_attribute(attribute, value, kernel, device);
  }
  CUresult launch_kernel(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                         unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream,
                         void** params, void** extra) override {
    return m_entry.launch_kernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes,
                                 stream, params, extra);
  }
  CUresult launch_kernel_ex(const CUlaunchConfig& config, CUfunction function, void** params,
                            void** extra) override {
    if (m_entry.launch_kernel_ex == nullptr) return k_cuda_error_call_requires_newer_driver;
    return m_entry.launch_kernel_ex(&config, function, params, extra);
  }
  CUresult kernel_get_attribute(int* value, int attribute, CUkernel kernel, CUdevice device) override {
    if (m_entry.kernel_get_attribute == nullptr) return k_cuda_error_call_requires_newer_driver;
    return m_entry.kernel_get_attribute(value, attribute, kernel, device);
  }
  CUresult occupancy_max_active_blocks(int* blocks, CUfunction function, int block_size,
                                       std::size_t dynamic_shared_bytes) override {
    if (m_entry.occupancy_max_active_blocks == nullptr) return k_cuda_error_call_requires_newer_driver;
    return m_entry.occupancy_max_active_blocks(blocks, function, block_size, dynamic_shared_bytes);
  }
  CUresult occupancy_max_potential_block_size(int* min_grid_size, int* block_size, CUfunction function,
                                              std::size_t dynamic_shared_bytes, int block_size_limit) override {
    if (m_entry.occupancy_max_potential_block_size == nullptr) return k_cuda_error_call_requires_newer_driver;
    return m_entry.occupancy_max_potential_block_size(min_grid_size, block_size, function, nullptr,
                                                      dynamic_shared_bytes, block_size_limit);
  }
  std::string error_name(CUresult result) override { return cuda_error_name(m_entry.get_error_name, result); }

private:
  [[maybe_unused]] void* m_library;  // kept, never closed: see the destructor
  EntryPoints m_entry;
};

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

CUresult SystemDriver::library_load_data(CUlibrary* library, const void* image, std::string* error_log) {
  if (error_log == nullptr) {
    return m_entry.library_load_data(library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  }
  error_log->clear();
  // [measured, driver 580.159, H200, LAZY and EAGER] PTX that does not compile (syntax, .target too high,
  // .version too new) still loads with CUDA_SUCCESS; the log is written during this call and the error
  // comes from cuLibraryGetKernel (218, 222). So the log is returned whatever the result, and the driver
  // does not write into the buffer after the call returns, which makes a stack buffer safe. On the stack
  // rather than in a std::string also so that nothing can throw before the driver is called.
  char log[k_jit_error_log_bytes];
  log[0] = '\0';
  int options[] = {k_jit_error_log_buffer, k_jit_error_log_buffer_size_bytes};
  void* values[] = {log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof log))};
  const CUresult result = m_entry.library_load_data(library, image, options, values, 2, nullptr, nullptr, 0);

  // The driver writes the bytes it used into the size slot itself (an unsigned int, so only the low 32
  // bits are meaningful). Distrust it anyway: clamp to the buffer and stop at the first NUL.
  const auto used = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(values[1]));
  const char* begin = log;
  const char* end = std::find(log, log + (used < sizeof log ? used : sizeof log), '\0');
  while (begin < end && is_space(*begin)) ++begin;
  while (end > begin && is_space(end[-1])) --end;
  try {
    error_log->assign(begin, end);
  } catch (const std::bad_alloc&) {
    // The load itself succeeded or failed on its own: report that, without its log, rather than leak a
    // loaded library behind an out-of-memory result.
    error_log->clear();
  }
  return result;
}

}  // namespace

std::unique_ptr<DriverApi> make_system_driver(void* library, const EntryPoints& entry_points) {
  return std::make_unique<SystemDriver>(library, entry_points);
}

std::string cuda_error_name(PFN_cuGetErrorName_v6000 get_error_name, CUresult result) {
  const char* name = nullptr;
  if (get_error_name != nullptr && get_error_name(result, &name) == k_cuda_success && name != nullptr) {
    return name;
  }
  return "CUDA error " + std::to_string(result);
}

}  // namespace kiln::driver
