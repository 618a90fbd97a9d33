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

}  // namespace

Status current_device(driver::DriverApi& driver, driver::CUdevice& device) {
  driver::CUcontext context = nullptr;
  CUresult r = driver.ctx_get_current(&context);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuCtxGetCurrent", r);
  if (!context) {
    driver::CUdevice first = 0;
    r = driver.device_get(&first, 0);
    if (r != driver::k_cuda_success) return driver_failure(driver, "cuDeviceGet", r, "for device 0");
    r = driver.primary_ctx_retain(&context, first);
    if (r != driver::k_cuda_success) return driver_failure(driver, "cuDevicePrimaryCtxRetain", r, "for device 0");
    r = driver.ctx_set_current(context);
    if (r != driver::k_cuda_success) return driver_failure(driver, "cuCtxSetCurrent", r);
  }
  r = driver.ctx_get_device(&device);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuCtxGetDevice", r);
  return {};
}

Status device_for_ordinal(driver::DriverApi& driver, int ordinal, driver::CUdevice& device) {
  if (ordinal < -1) {
    return fail(KILN_STATUS_INVALID_ARGUMENT,
                "device " + std::to_string(ordinal) +
                    " is not a CUDA device ordinal (0, 1, ...) or KILN_CURRENT_DEVICE (-1)");
  }
  if (ordinal == -1) {
    driver::CUcontext context = nullptr;
    const CUresult r = driver.ctx_get_current(&context);
    if (r != driver::k_cuda_success) return driver_failure(driver, "cuCtxGetCurrent", r);
    if (context) {
      const CUresult d = driver.ctx_get_device(&device);
      if (d != driver::k_cuda_success) return driver_failure(driver, "cuCtxGetDevice", d);
      return {};
    }
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

Status DeviceCache::profile(driver::DriverApi& driver, driver::CUdevice device, select::DeviceProfile& out) {
  {
    std::shared_lock lock(m_mutex);
    auto it = m_devices.find(device);
    if (it != m_devices.end()) {
      out = it->second.profile;
      return {};
    }
  }
  // Queried without the lock: two threads may both ask on first use; the answers are equal.
  const std::string which = "for device " + std::to_string(device);
  int major = 0, minor = 0, integrated = 0;
  CUresult r = driver.device_get_attribute(&major, driver::k_attribute_compute_capability_major, device);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)", r, which);
  r = driver.device_get_attribute(&minor, driver::k_attribute_compute_capability_minor, device);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)", r, which);
  r = driver.device_get_attribute(&integrated, driver::k_attribute_integrated, device);
  if (r != driver::k_cuda_success) return driver_failure(driver, "cuDeviceGetAttribute(INTEGRATED)", r, which);
  int version = 0;
  {
    std::shared_lock lock(m_mutex);
    version = m_driver_version;
  }
  if (version < 0) {
    r = driver.driver_get_version(&version);
    if (r != driver::k_cuda_success) return driver_failure(driver, "cuDriverGetVersion", r);
  }
  if (major < 0 || major > 99 || minor < 0 || minor > 9) {
    return fail(KILN_STATUS_DRIVER_ERROR, "device " + std::to_string(device) + " reports compute capability " +
                                              std::to_string(major) + "." + std::to_string(minor) +
                                              ", which Kiln cannot represent");
  }
  Entry entry;
  entry.profile.arch = static_cast<std::uint16_t>(major * 10 + minor);
  entry.profile.integrated = integrated != 0;
  entry.profile.max_ptx_version = select::max_ptx_version_for_driver(version);
  std::unique_lock lock(m_mutex);
  m_driver_version = version;
  out = m_devices.emplace(device, entry).first->second.profile;
  return {};
}

Status DeviceCache::shared_memory_optin_limit(driver::DriverApi& driver, driver::CUdevice device, int& out) {
  select::DeviceProfile unused;
  KILN_TRY(profile(driver, device, unused));  // makes sure the entry exists
  {
    std::shared_lock lock(m_mutex);
    const int limit = m_devices.at(device).optin_limit;
    if (limit >= 0) {
      out = limit;
      return {};
    }
  }
  int limit = 0;
  const CUresult r = driver.device_get_attribute(&limit, driver::k_attribute_max_shared_memory_per_block_optin, device);
  if (r != driver::k_cuda_success) {
    return driver_failure(driver, "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)", r,
                          "for device " + std::to_string(device));
  }
  std::unique_lock lock(m_mutex);
  m_devices.at(device).optin_limit = limit;
  out = limit;
  return {};
}

std::string describe_device(driver::CUdevice device, const select::DeviceProfile& profile) {
  if (device == k_any_device) return "a device of compute capability " + select::arch_string(profile.arch);
  return "device " + std::to_string(device) + " (compute capability " + select::arch_string(profile.arch) +
         (profile.integrated ? ", integrated" : "") + ")";
}

}  // namespace kiln::core
