// The device a call works on (the calling thread's current context) and what Kiln needs to know
// about it: compute capability, integrated or not, the PTX ISA its driver accepts, and the largest
// dynamic shared memory a kernel may opt into.
#pragma once

#include "core/status.hpp"
#include "driver/driver_api.hpp"
#include "platform/shared_mutex.hpp"
#include "select/select_image.hpp"

#include <map>

namespace kiln::core {

// A device known only by its profile (kiln_package_select_image_for_arch), in place of an ordinal.
inline constexpr driver::CUdevice k_any_device = -1;

// The device of the calling thread's current context. With no current context, device 0's primary
// context is retained and made current for this thread (as the CUDA runtime does on first use); Kiln
// never releases it, because the caller may go on using it.
Status current_device(driver::DriverApi& driver, driver::CUdevice& device);

// The device with CUDA ordinal `ordinal`, or for -1 (KILN_CURRENT_DEVICE) the current context's device
// and else device 0, without creating or retaining a context. An ordinal the driver does not have is
// INVALID_ARGUMENT; a driver with no device at all is NO_DEVICE.
Status device_for_ordinal(driver::DriverApi& driver, int ordinal, driver::CUdevice& device);

// Attributes of each device, queried once per device and cached (attributes do not change while
// a process runs). Safe to use from many threads.
class DeviceCache {
public:
  Status profile(driver::DriverApi& driver, driver::CUdevice device, select::DeviceProfile& out);
  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN (97), in bytes.
  Status shared_memory_optin_limit(driver::DriverApi& driver, driver::CUdevice device, int& out);

private:
  struct Entry {
    select::DeviceProfile profile;
    int optin_limit = -1;  // -1: not queried yet
  };
  platform::SharedMutex m_mutex;
  std::map<driver::CUdevice, Entry> m_devices;
  int m_driver_version = -1;  // cuDriverGetVersion, queried with the first device
};

// "device 0 (compute capability 8.7, integrated)", as messages and the log name a device; for
// k_any_device "a device of compute capability 9.0".
std::string describe_device(driver::CUdevice device, const select::DeviceProfile& profile);

}  // namespace kiln::core
