#include "core/driver_access.hpp"

#include "core/device.hpp"
#include "util/once.hpp"

#include <atomic>
#include <mutex>

namespace kiln::core {

namespace {

using driver::DriverLoadFailure;

std::mutex g_override_mutex;
std::shared_ptr<const DriverAccess> g_override;  // set by the test hooks

Once g_system_once;       // util/once.hpp: no system call on the first open, as std::call_once makes
DriverAccess g_system;  // written once under g_system_once, read-only afterwards
std::atomic<bool> g_system_bound{false};   // g_system holds a driver

DriverAccess from_load(driver::DriverLoad load) {
  DriverAccess access;
  if (load.failure == DriverLoadFailure::none && load.driver) {
    access.driver = std::shared_ptr<driver::DriverApi>(std::move(load.driver));
    access.devices = std::make_shared<DeviceCache>();
  } else {
    access.failure = status_from_load(load);
  }
  return access;
}

}  // namespace

Status status_from_load(const driver::DriverLoad& load) {
  const std::string message = load.message.empty() ? std::string("the CUDA driver could not be loaded") : load.message;
  switch (load.failure) {
    case DriverLoadFailure::no_library:
    case DriverLoadFailure::stub_library:
    case DriverLoadFailure::too_old:
      return fail(KILN_STATUS_NO_DRIVER, message);
    case DriverLoadFailure::init_failed:
      if (load.init_result == driver::k_cuda_error_no_device) return fail(KILN_STATUS_NO_DEVICE, message);
      if (load.init_result == driver::k_cuda_error_out_of_memory) return fail(KILN_STATUS_OUT_OF_MEMORY, message);
      // A stub that gets as far as cuInit reports 34 there: still "no driver".
      if (load.init_result == driver::k_cuda_error_stub_library) return fail(KILN_STATUS_NO_DRIVER, message);
      return fail(KILN_STATUS_DRIVER_ERROR, message);
    case DriverLoadFailure::none:
      break;
  }
  // failure == none without a driver: a loader bug, reported rather than dereferenced.
  return fail(KILN_STATUS_INTERNAL_ERROR, "the driver loader returned no driver and no reason");
}

DriverAccess acquire_driver() {
  {
    std::lock_guard lock(g_override_mutex);
    if (g_override) return *g_override;
  }
  g_system_once.run([] {
    g_system = from_load(driver::load_system_driver());
    if (g_system.driver) g_system_bound.store(true, std::memory_order_release);
  });
  return g_system;
}

bool system_driver_bound() { return g_system_bound.load(std::memory_order_acquire); }

std::string describe_result(driver::DriverApi& driver, driver::CUresult result) {
  const std::string number = std::to_string(result);
  std::string name = driver.error_name(result);
  if (name.empty() || name == number) return "CUDA error " + number;
  return name + " (" + number + ")";
}

void set_driver_for_testing(std::shared_ptr<driver::DriverApi> driver) {
  std::lock_guard lock(g_override_mutex);
  if (!driver) {
    g_override.reset();
    return;
  }
  auto access = std::make_shared<DriverAccess>();
  access->driver = std::move(driver);
  access->devices = std::make_shared<DeviceCache>();  // a new driver's devices are not the last one's
  g_override = std::move(access);
}

void set_driver_load_for_testing(driver::DriverLoad load) {
  auto access = std::make_shared<const DriverAccess>(from_load(std::move(load)));
  std::lock_guard lock(g_override_mutex);
  g_override = std::move(access);
}

}  // namespace kiln::core
