// The process's CUDA driver, loaded on the first call that needs a GPU, or at open where the process
// has libcuda loaded already (core/package.cpp), so that programs linking Kiln start, and open and
// list packages, on machines without a driver.
#pragma once

#include "util/result.hpp"
#include "driver/driver_api.hpp"

#include <memory>
#include <string>

namespace kiln::core {

class DeviceCache;

// Either a usable driver or the failure that explains why there is none.
struct DriverAccess {
  std::shared_ptr<driver::DriverApi> driver;  // null on failure
  std::shared_ptr<DeviceCache> devices;       // what is known of its devices: one per driver, for the process
  Status failure;                            // set when driver is null
};

// The driver: the first call runs load_system_driver() once for the whole process
// and every later call returns the same result, success or failure. A test driver, if set, wins.
DriverAccess acquire_driver();

// Whether the process-wide driver is loaded and bound: a package opened after that binds to it at
// open without asking the loader whether libcuda is there (a walk of its list, 10-50 us).
bool system_driver_bound();

// The status a failed load becomes: NO_DRIVER for a missing, stub or too old library, NO_DEVICE
// when cuInit reports no device (100), OUT_OF_MEMORY for 2, DRIVER_ERROR otherwise; the loader's
// message is kept.
Status status_from_load(const driver::DriverLoad& load);

// "CUDA_ERROR_NO_BINARY_FOR_GPU (209)": a driver result as messages show it.
std::string describe_result(driver::DriverApi& driver, driver::CUresult result);

// Test hooks, internal to the core (libkiln.so does not export them): replace the system driver
// with a fake, or with the outcome of a failed load. Packages take the driver on their first GPU
// call and keep it, so set these before that. A null driver restores the system loader.
void set_driver_for_testing(std::shared_ptr<driver::DriverApi> driver);
void set_driver_load_for_testing(driver::DriverLoad load);

}  // namespace kiln::core
