#include "core/device.hpp"

#include "core/driver_access.hpp"

#include <mutex>
#include <string>

namespace kiln::core {

namespace {

using driver::CUresult;

Status driver_failure(driver::DriverApi& driver, const char* call, CUresult result, const std::string& what = "") {
  // No device is a status of its own: the program may fall back to the CPU on it.
  const kiln_status code = result == driver::k_cuda_error_no_device ? KILN_STATUS_NO_DEVICE : KILN_STATUS_DRIVER_ERROR;
  return fail(code, std::string(call) + (what.empty() ? "" : " " + what) + " failed: " + describe_result(driver, result));
}

std::string for_device(driver::CUdevice device) { return "for device " + std::to_string(device); }

}  // namespace

Status current_device(driver::DriverApi& driver, driver::CUdevice& device) {
  // One call when a context is current, which is nearly always; only a failure asks what is current.
  const CUresult asked = driver.ctx_get_device(&device);
  if (asked == driver::k_cuda_success) return {};
  driver::CUcontext context = nullptr;
  CUresult r = driver.ctx_get_current(&context);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuCtxGetCurrent", r);
  if (context) return driver_failure(driver, "cuCtxGetDevice", asked);  // a current context the driver refuses
  driver::CUdevice first = 0;
  r = driver.device_get(&first, 0);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuDeviceGet", r, "for device 0");
  r = driver.primary_ctx_retain(&context, first);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuDevicePrimaryCtxRetain", r, "for device 0");
  r = driver.ctx_set_current(context);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuCtxSetCurrent", r);
  device = first;  // the context just made current is device 0's
  return {};
}

Status device_for_ordinal(driver::DriverApi& driver, int ordinal, driver::CUdevice& device) {
  if (ordinal < -1) {
    return fail(KILN_STATUS_INVALID_ARGUMENT,
                "device " + std::to_string(ordinal) +
                    " is not a CUDA device ordinal (0, 1, ...) or KILN_CURRENT_DEVICE (-1)");
  }
  if (ordinal == -1) {
    const CUresult asked = driver.ctx_get_device(&device);
    if (asked == driver::k_cuda_success) return {};
    driver::CUcontext context = nullptr;
    const CUresult r = driver.ctx_get_current(&context);
    if (r != driver::k_cuda_success) return driver_failure(driver, "cuCtxGetCurrent", r);
    if (context) return driver_failure(driver, "cuCtxGetDevice", asked);
    ordinal = 0;  // no context: device 0, as the CUDA runtime would pick, but none is created
  }
  const CUresult r = driver.device_get(&device, ordinal);
  // cuDeviceGet answers an ordinal the system does not have with CUDA_ERROR_INVALID_DEVICE (its
  // documented answers include INVALID_VALUE too).
  if (r == driver::k_cuda_error_invalid_value || r == driver::k_cuda_error_invalid_device) {
    return fail(KILN_STATUS_INVALID_ARGUMENT, "there is no CUDA device " + std::to_string(ordinal) +
                                                  ": cuDeviceGet: " + describe_result(driver, r));
  }
  if (r != driver::k_cuda_success) {
    return driver_failure(driver, "cuDeviceGet", r, "for device " + std::to_string(ordinal));
  }
  return {};
}

void DeviceCache::bind(driver::DriverApi& driver) {
  m_bind_once.run([&] {
    int count = 0;
    if (driver.device_get_count(&count) == driver::k_cuda_success && count == 1) {
      driver::CUdevice only = 0;
      std::uint16_t arch = 0;
      if (driver.device_get(&only, 0) == driver::k_cuda_success) (void)ask_arch(driver, only, arch);
      m_single_device.store(true, std::memory_order_release);
    }
  });
}

DeviceCache::Entry DeviceCache::find(driver::CUdevice device) const {
  std::shared_lock lock(m_mutex);
  auto it = m_devices.find(device);
  return it == m_devices.end() ? Entry{} : it->second;
}

Status DeviceCache::ask_arch(driver::DriverApi& driver, driver::CUdevice device, std::uint16_t& out) {
  // Asked without the lock: two threads may both ask on first use; the answers are equal.
  int major = 0, minor = 0;
  CUresult r = driver.device_get_attribute(&major, driver::k_attribute_compute_capability_major, device);
  if (r != driver::k_cuda_success) {
    return driver_failure(driver, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)", r, for_device(device));
  }
  r = driver.device_get_attribute(&minor, driver::k_attribute_compute_capability_minor, device);
  if (r != driver::k_cuda_success) {
    return driver_failure(driver, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)", r, for_device(device));
  }
  if (major < 0 || major > 99 || minor < 0 || minor > 9) {
    return fail(KILN_STATUS_DRIVER_ERROR, "device " + std::to_string(device) + " reports compute capability " +
                                              std::to_string(major) + "." + std::to_string(minor) +
                                              ", which Kiln cannot represent");
  }
  out = static_cast<std::uint16_t>(major * 10 + minor);
  std::unique_lock lock(m_mutex);
  m_devices[device].arch = out;
  return {};
}

Status DeviceCache::arch(driver::DriverApi& driver, driver::CUdevice device, std::uint16_t& out) {
  out = find(device).arch;
  return out != 0 ? Status{} : ask_arch(driver, device, out);
}

Status DeviceCache::profile(driver::DriverApi& driver, driver::CUdevice device, select::DeviceProfile& out) {
  Entry entry = find(device);
  if (entry.arch == 0) KILN_TRY(ask_arch(driver, device, entry.arch));
  int version = 0;
  {
    std::shared_lock lock(m_mutex);
    version = m_driver_version;
  }
  if (entry.integrated < 0) {
    const CUresult r = driver.device_get_attribute(&entry.integrated, driver::k_attribute_integrated, device);
    if (r != driver::k_cuda_success) {
      return driver_failure(driver, "cuDeviceGetAttribute(INTEGRATED)", r, for_device(device));
    }
  }
  if (version < 0) {
    const CUresult r = driver.driver_get_version(&version);
    if (r != driver::k_cuda_success) return driver_failure(driver, "cuDriverGetVersion", r);
  }
  {
    std::unique_lock lock(m_mutex);
    m_devices[device].integrated = entry.integrated;
    m_driver_version = version;
  }
  out.arch = entry.arch;
  out.integrated = entry.integrated != 0;
  out.max_ptx_version = select::max_ptx_version_for_driver(version);
  return {};
}

Status DeviceCache::shared_memory_optin_limit(driver::DriverApi& driver, driver::CUdevice device, int& out) {
  const int known = find(device).optin_limit;
  if (known >= 0) {
    out = known;
    return {};
  }
  int limit = 0;
  const CUresult r = driver.device_get_attribute(&limit, driver::k_attribute_max_shared_memory_per_block_optin, device);
  if (r != driver::k_cuda_success) {
    return driver_failure(driver, "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)", r, for_device(device));
  }
  std::unique_lock lock(m_mutex);
  m_devices[device].optin_limit = limit;
  out = limit;
  return {};
}

Status DeviceQuery::of(DeviceCache& cache, driver::DriverApi& driver, driver::CUdevice device, DeviceQuery& out) {
  out = DeviceQuery();
  out.m_device = device;
  out.m_cache = &cache;
  out.m_driver = &driver;
  // Until complete: the most restrictive rest, under which only a cubin of this exact architecture
  // can be chosen, which the whole profile would choose too.
  out.m_profile.integrated = true;
  out.m_profile.max_ptx_version = 0;
  return cache.arch(driver, device, out.m_profile.arch);
}

Status DeviceQuery::make_complete() {
  if (m_complete) return {};
  KILN_TRY(m_cache->profile(*m_driver, m_device, m_profile));
  m_complete = true;
  return {};
}

std::string DeviceQuery::describe() {
  (void)make_complete();  // a device the driver will not describe further is named by what is known
  if (m_complete) return describe_device(m_device, m_profile);
  select::DeviceProfile known = m_profile;
  known.integrated = false;
  return describe_device(m_device, known);
}

std::string describe_device(driver::CUdevice device, const select::DeviceProfile& profile) {
  if (device == k_any_device) return "a device of compute capability " + select::arch_string(profile.arch);
  return "device " + std::to_string(device) + " (compute capability " + select::arch_string(profile.arch) +
         (profile.integrated ? ", integrated" : "") + ")";
}

}  // namespace kiln::core
