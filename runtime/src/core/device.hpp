// The device a call works on (the calling thread's current context) and what Kiln needs to know
// about it: compute capability, integrated or not, the PTX ISA its driver accepts, and the largest
// dynamic shared memory a kernel may opt into. Each is asked once per device (the driver's version
// once per process) and only when something needs it.
#pragma once

#include "util/once.hpp"
#include "util/result.hpp"
#include "driver/driver_api.hpp"
#include "platform/shared_mutex.hpp"
#include "select/select_image.hpp"

#include <atomic>
#include <map>
#include <mutex>

namespace kiln::core {

// A device known only by its profile (kiln_package_select_image_for_arch), in place of an ordinal.
inline constexpr driver::CUdevice k_any_device = -1;

// The device of the calling thread's current context. With no current context, device 0's primary
// context is retained and made current for this thread (as the CUDA runtime does on first use); Kiln
// never releases it, because the caller may go on using it. One driver call when a context is
// current (cuCtxGetDevice).
Status current_device(driver::DriverApi& driver, driver::CUdevice& device);

// The device with CUDA ordinal `ordinal`, or for -1 (KILN_CURRENT_DEVICE) the current context's device
// and else device 0, without creating or retaining a context. An ordinal the driver does not have is
// INVALID_ARGUMENT; a driver with no device at all is NO_DEVICE.
Status device_for_ordinal(driver::DriverApi& driver, int ordinal, driver::CUdevice& device);

// What the process's devices are, asked once and kept as long as the driver: one cache per driver
// (DriverAccess), shared by every package. Attributes do not change while a process runs. Safe to
// use from many threads.
class DeviceCache {
public:
  // What holds for the whole process, asked once, when a package first takes the driver (at open
  // for a program that uses CUDA already): the number of devices, and with one device its compute
  // capability, since every call will need it. Nothing here fails: an answer the driver refuses is
  // asked again by the call that needs it, which reports the failure.
  void bind(driver::DriverApi& driver);
  // The process has exactly one device (known from bind()): every context is on it, so what was
  // resolved there is what any context would resolve.
  bool single_device() const { return m_single_device.load(std::memory_order_acquire); }

  // The compute capability (major * 10 + minor) of `device`.
  Status arch(driver::DriverApi& driver, driver::CUdevice device, std::uint16_t& out);
  // All of select::DeviceProfile: the compute capability, whether the device is integrated
  // (CU_DEVICE_ATTRIBUTE_INTEGRATED) and the PTX ISA its driver accepts (cuDriverGetVersion).
  Status profile(driver::DriverApi& driver, driver::CUdevice device, select::DeviceProfile& out);
  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN (97), in bytes.
  Status shared_memory_optin_limit(driver::DriverApi& driver, driver::CUdevice device, int& out);

private:
  struct Entry {
    std::uint16_t arch = 0;  // 0: not asked yet
    int integrated = -1;     // -1: not asked yet
    int optin_limit = -1;    // -1: not asked yet
  };
  // A copy of `device`'s entry (nothing known if there is none yet), under the shared lock.
  Entry find(driver::CUdevice device) const;
  Status ask_arch(driver::DriverApi& driver, driver::CUdevice device, std::uint16_t& out);

  Once m_bind_once;                     // bind() runs once (util/once.hpp: no system call)
  std::atomic<bool> m_single_device{false};
  mutable platform::SharedMutex m_mutex;
  std::map<driver::CUdevice, Entry> m_devices;
  int m_driver_version = -1;  // cuDriverGetVersion, asked when a profile first needs it
};

// A device as image choice sees it: its compute capability at once, the rest of its profile
// (integrated, the driver's PTX ISA) only when the choice or a message needs it. Rules 1 and 2 of
// the choice (a cubin of the device's exact architecture) depend on nothing else, and they decide
// nearly every first load: those ask the driver for nothing more.
class DeviceQuery {
public:
  // A device known whole by its profile (kiln_package_select_image_for_arch): nothing to ask.
  explicit DeviceQuery(const select::DeviceProfile& known, driver::CUdevice device = k_any_device)
      : m_profile(known), m_device(device), m_complete(true) {}
  // Device `device` of `cache`: asks its compute capability (once per device and process).
  static Status of(DeviceCache& cache, driver::DriverApi& driver, driver::CUdevice device, DeviceQuery& out);
  DeviceQuery() = default;

  driver::CUdevice device() const { return m_device; }
  bool complete() const { return m_complete; }
  // The profile: the whole of it once complete(); before, the compute capability with the most
  // restrictive rest (integrated, no PTX), so that only an exact-architecture cubin can be chosen.
  const select::DeviceProfile& profile() const { return m_profile; }
  // Asks the rest of the profile (once per device; a no-op when complete).
  Status make_complete();
  // describe_device's words, the profile made complete first (as far as the driver answers).
  std::string describe();

private:
  select::DeviceProfile m_profile;
  driver::CUdevice m_device = 0;
  bool m_complete = false;
  DeviceCache* m_cache = nullptr;
  driver::DriverApi* m_driver = nullptr;
};

// "device 0 (compute capability 8.7, integrated)", as messages and the log name a device; for
// k_any_device "a device of compute capability 9.0".
std::string describe_device(driver::CUdevice device, const select::DeviceProfile& profile);

}  // namespace kiln::core
