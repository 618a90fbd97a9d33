#include "fake_driver.hpp"
#include "runtime_fixture.hpp"

#include <cstdint>
#include <cstring>

namespace kiln::testing {

namespace {

using driver::CUresult;

constexpr std::uintptr_t k_context_base = 0x1000;

driver::CUcontext context_of(int ordinal) {
  return reinterpret_cast<driver::CUcontext>(k_context_base + static_cast<std::uintptr_t>(ordinal));
}

}  // namespace

void FakeDriver::make_current(int ordinal) {
  std::lock_guard lock(m_mutex);
  if (ordinal < 0) {
    m_current.erase(std::this_thread::get_id());
  } else {
    m_current[std::this_thread::get_id()] = ordinal;
  }
}

std::vector<std::string> FakeDriver::loads() const {
  std::lock_guard lock(m_mutex);
  return m_loads;
}
std::vector<std::string> FakeDriver::unloads() const {
  std::lock_guard lock(m_mutex);
  return m_unloads;
}
std::vector<FakeLaunch> FakeDriver::launches() const {
  std::lock_guard lock(m_mutex);
  return m_launches;
}
std::vector<FakeAttributeCall> FakeDriver::attribute_calls() const {
  std::lock_guard lock(m_mutex);
  return m_attribute_calls;
}
int FakeDriver::function_loads() const {
  std::lock_guard lock(m_mutex);
  return m_function_loads;
}
int FakeDriver::primary_retains() const {
  std::lock_guard lock(m_mutex);
  return m_primary_retains;
}
int FakeDriver::get_kernel_calls() const {
  std::lock_guard lock(m_mutex);
  return m_get_kernel_calls;
}

std::vector<std::pair<std::string, std::string>> FakeDriver::kernel_lookups() const {
  std::lock_guard lock(m_mutex);
  return m_kernel_lookups;
}

std::vector<std::string> FakeDriver::calls() const {
  std::lock_guard lock(m_mutex);
  return m_calls;
}

void FakeDriver::clear_calls() {
  std::lock_guard lock(m_mutex);
  m_calls.clear();
}

const FakeDriver::Library* FakeDriver::library_of(driver::CUlibrary handle) const {
  const auto i = reinterpret_cast<std::uintptr_t>(handle);
  if (i == 0 || i > m_libraries.size() || !m_libraries[i - 1].loaded) return nullptr;
  return &m_libraries[i - 1];
}

const FakeDriver::KernelEntry* FakeDriver::kernel_of(driver::CUkernel handle) const {
  const auto i = reinterpret_cast<std::uintptr_t>(handle);
  if (i == 0 || i > m_kernels.size()) return nullptr;
  return &m_kernels[i - 1];
}

int FakeDriver::current_device_locked() const {
  auto it = m_current.find(std::this_thread::get_id());
  return it == m_current.end() ? -1 : it->second;
}

CUresult FakeDriver::init() {
  std::lock_guard lock(m_mutex);
  record_locked("cuInit");
  return driver::k_cuda_success;
}

CUresult FakeDriver::driver_get_version(int* version) {
  std::lock_guard lock(m_mutex);
  record_locked("cuDriverGetVersion");
  *version = driver_version;
  return driver::k_cuda_success;
}

CUresult FakeDriver::device_get_count(int* count) {
  std::lock_guard lock(m_mutex);
  record_locked("cuDeviceGetCount");
  *count = static_cast<int>(devices.size());
  return driver::k_cuda_success;
}

CUresult FakeDriver::device_get(driver::CUdevice* device, int ordinal) {
  {
    std::lock_guard lock(m_mutex);
    record_locked("cuDeviceGet");
  }
  if (devices.empty()) return driver::k_cuda_error_no_device;
  // As the real driver answers an ordinal it does not have.
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= devices.size()) return driver::k_cuda_error_invalid_device;
  *device = ordinal;
  return driver::k_cuda_success;
}

CUresult FakeDriver::device_get_attribute(int* value, int attribute, driver::CUdevice device) {
  {
    std::lock_guard lock(m_mutex);
    const char* name = attribute == driver::k_attribute_compute_capability_major   ? "COMPUTE_CAPABILITY_MAJOR"
                       : attribute == driver::k_attribute_compute_capability_minor ? "COMPUTE_CAPABILITY_MINOR"
                       : attribute == driver::k_attribute_integrated               ? "INTEGRATED"
                       : attribute == driver::k_attribute_max_shared_memory_per_block_optin
                           ? "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"
                           : nullptr;
    record_locked("cuDeviceGetAttribute(" + (name ? std::string(name) : std::to_string(attribute)) + ")");
  }
  if (device < 0 || static_cast<std::size_t>(device) >= devices.size()) return driver::k_cuda_error_invalid_value;
  const FakeDevice& d = devices[static_cast<std::size_t>(device)];
  switch (attribute) {
    case driver::k_attribute_compute_capability_major: *value = d.arch / 10; break;
    case driver::k_attribute_compute_capability_minor: *value = d.arch % 10; break;
    case driver::k_attribute_integrated: *value = d.integrated ? 1 : 0; break;
    case driver::k_attribute_max_shared_memory_per_block_optin: *value = d.shared_memory_optin; break;
    default: return driver::k_cuda_error_invalid_value;
  }
  return driver::k_cuda_success;
}

CUresult FakeDriver::ctx_get_current(driver::CUcontext* context) {
  std::lock_guard lock(m_mutex);
  record_locked("cuCtxGetCurrent");
  const int device = current_device_locked();
  *context = device < 0 ? nullptr : context_of(device);
  return driver::k_cuda_success;
}

CUresult FakeDriver::ctx_set_current(driver::CUcontext context) {
  std::lock_guard lock(m_mutex);
  record_locked("cuCtxSetCurrent");
  if (!context) {
    m_current.erase(std::this_thread::get_id());
    return driver::k_cuda_success;
  }
  const auto value = reinterpret_cast<std::uintptr_t>(context);
  if (value < k_context_base || value - k_context_base >= devices.size()) return driver::k_cuda_error_invalid_context;
  m_current[std::this_thread::get_id()] = static_cast<int>(value - k_context_base);
  return driver::k_cuda_success;
}

CUresult FakeDriver::ctx_get_device(driver::CUdevice* device) {
  std::lock_guard lock(m_mutex);
  record_locked("cuCtxGetDevice");
  const int current = current_device_locked();
  if (current < 0) return driver::k_cuda_error_invalid_context;
  *device = current;
  return driver::k_cuda_success;
}

CUresult FakeDriver::primary_ctx_retain(driver::CUcontext* context, driver::CUdevice device) {
  std::lock_guard lock(m_mutex);
  record_locked("cuDevicePrimaryCtxRetain");
  if (device < 0 || static_cast<std::size_t>(device) >= devices.size()) return driver::k_cuda_error_invalid_value;
  ++m_primary_retains;
  *context = context_of(device);
  return driver::k_cuda_success;
}

CUresult FakeDriver::library_load_data(driver::CUlibrary* library, const void* image, std::string* error_log) {
  // One lock for the whole call: the loader loads different images from many threads at once, and
  // every table here (log_buffer_given too) is shared between them.
  std::lock_guard lock(m_mutex);
  record_locked("cuLibraryLoadData");
  const std::string text = image_key(image);  // test images carry a line of text (runtime_fixture.hpp)
  log_buffer_given[text] = error_log != nullptr;
  auto failure = load_failures.find(text);
  if (failure != load_failures.end()) {
    if (error_log) *error_log = failure->second.log;
    return failure->second.result;
  }
  // The real driver fills the log during a load that returns success for PTX that does not compile.
  if (auto log = load_logs.find(text); log != load_logs.end() && error_log) *error_log = log->second;
  m_libraries.push_back(Library{text, true});
  m_loads.push_back(text);
  *library = reinterpret_cast<driver::CUlibrary>(static_cast<std::uintptr_t>(m_libraries.size()));
  return driver::k_cuda_success;
}

CUresult FakeDriver::library_unload(driver::CUlibrary library) {
  std::lock_guard lock(m_mutex);
  record_locked("cuLibraryUnload");
  const Library* l = library_of(library);
  if (!l) return driver::k_cuda_error_invalid_value;
  m_unloads.push_back(l->image);
  m_libraries[reinterpret_cast<std::uintptr_t>(library) - 1].loaded = false;
  return driver::k_cuda_success;
}

CUresult FakeDriver::library_get_kernel(driver::CUkernel* kernel, driver::CUlibrary library, const char* name) {
  std::lock_guard lock(m_mutex);
  record_locked("cuLibraryGetKernel");
  ++m_get_kernel_calls;
  const Library* l = library_of(library);
  if (!l) return driver::k_cuda_error_invalid_value;
  m_kernel_lookups.emplace_back(l->image, name);
  auto unusable = unusable_images.find(l->image);
  if (unusable != unusable_images.end()) return unusable->second;
  if (missing_kernels.count(name)) return driver::k_cuda_error_not_found;
  const auto index = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(library) - 1);
  for (std::size_t i = 0; i < m_kernels.size(); ++i) {
    if (m_kernels[i].library == index && m_kernels[i].name == name) {
      *kernel = reinterpret_cast<driver::CUkernel>(i + 1);
      return driver::k_cuda_success;
    }
  }
  m_kernels.push_back(KernelEntry{index, name});
  *kernel = reinterpret_cast<driver::CUkernel>(m_kernels.size());
  return driver::k_cuda_success;
}

CUresult FakeDriver::library_get_global(driver::CUdeviceptr* pointer, std::size_t* bytes, driver::CUlibrary library,
                                        const char* name) {
  std::lock_guard lock(m_mutex);
  record_locked("cuLibraryGetGlobal");
  if (!library_of(library)) return driver::k_cuda_error_invalid_value;
  auto it = globals.find(name);
  if (it == globals.end()) return driver::k_cuda_error_not_found;
  *pointer = it->second.first;
  *bytes = it->second.second;
  return driver::k_cuda_success;
}

CUresult FakeDriver::kernel_get_function(driver::CUfunction* function, driver::CUkernel kernel) {
  std::lock_guard lock(m_mutex);
  record_locked("cuKernelGetFunction");
  if (!kernel_of(kernel)) return driver::k_cuda_error_invalid_value;
  if (current_device_locked() < 0) return driver::k_cuda_error_invalid_context;
  ++m_function_loads;
  *function = reinterpret_cast<driver::CUfunction>(kernel);
  return driver::k_cuda_success;
}

CUresult FakeDriver::kernel_set_attribute(int attribute, int value, driver::CUkernel kernel, driver::CUdevice device) {
  std::lock_guard lock(m_mutex);
  record_locked("cuKernelSetAttribute");
  const KernelEntry* k = kernel_of(kernel);
  if (!k) return driver::k_cuda_error_invalid_value;
  m_attribute_calls.push_back(FakeAttributeCall{attribute, value, k->name, device});
  return driver::k_cuda_success;
}

CUresult FakeDriver::record_launch_locked(driver::CUfunction function, const unsigned grid[3], const unsigned block[3],
                                          unsigned shared_bytes, driver::CUstream stream, void** params,
                                          FakeLaunch& launch) {
  // The runtime passes a CUkernel cast to CUfunction, which the real driver accepts.
  const KernelEntry* k = kernel_of(reinterpret_cast<driver::CUkernel>(function));
  if (!k) return driver::k_cuda_error_invalid_value;
  const int device = current_device_locked();
  if (device < 0) return driver::k_cuda_error_invalid_context;
  if (launch_result != driver::k_cuda_success) return launch_result;
  launch.kernel = k->name;
  launch.image = m_libraries[k->library].image;
  launch.device = device;
  for (int i = 0; i < 3; ++i) {
    launch.grid[i] = grid[i];
    launch.block[i] = block[i];
  }
  launch.shared_bytes = shared_bytes;
  launch.stream = stream;
  auto sizes = param_sizes.find(k->name);
  if (sizes != param_sizes.end()) {
    for (std::size_t i = 0; i < sizes->second.size(); ++i) {
      std::vector<std::byte> bytes(sizes->second[i]);
      std::memcpy(bytes.data(), params[i], bytes.size());
      launch.params.push_back(std::move(bytes));
    }
  }
  return driver::k_cuda_success;
}

CUresult FakeDriver::launch_kernel(driver::CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                   unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                                   driver::CUstream stream, void** params, void** /*extra*/) {
  std::lock_guard lock(m_mutex);
  record_locked("cuLaunchKernel");
  const unsigned grid[3] = {grid_x, grid_y, grid_z};
  const unsigned block[3] = {block_x, block_y, block_z};
  FakeLaunch launch;
  const CUresult r = record_launch_locked(function, grid, block, shared_bytes, stream, params, launch);
  if (r == driver::k_cuda_success) m_launches.push_back(std::move(launch));
  return r;
}

std::string FakeDriver::error_name(CUresult result) {
  switch (result) {
    case driver::k_cuda_error_invalid_value: return "CUDA_ERROR_INVALID_VALUE";
    case driver::k_cuda_error_out_of_memory: return "CUDA_ERROR_OUT_OF_MEMORY";
    case driver::k_cuda_error_no_device: return "CUDA_ERROR_NO_DEVICE";
    case driver::k_cuda_error_invalid_device: return "CUDA_ERROR_INVALID_DEVICE";
    case driver::k_cuda_error_invalid_image: return "CUDA_ERROR_INVALID_IMAGE";
    case driver::k_cuda_error_invalid_context: return "CUDA_ERROR_INVALID_CONTEXT";
    case driver::k_cuda_error_no_binary_for_gpu: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case driver::k_cuda_error_invalid_ptx: return "CUDA_ERROR_INVALID_PTX";
    case driver::k_cuda_error_unsupported_ptx_version: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case driver::k_cuda_error_not_found: return "CUDA_ERROR_NOT_FOUND";
    case driver::k_cuda_error_call_requires_newer_driver: return "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
    default: return std::to_string(result);
  }
}

}  // namespace kiln::testing
