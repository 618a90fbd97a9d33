// (a) Kiln as a program uses it: kiln_package_get_kernel and kiln_kernel_launch from libkiln.so.
// (d) the same steps through the runtime core linked statically, with the system driver wrapped in
//     a TimingDriver, to split the time into the driver's and Kiln's own.
#include "cases.hpp"
#include "timing_driver.hpp"

#include "core/driver_access.hpp"
#include "core/kernel.hpp"
#include "core/package.hpp"
#include "kiln/kiln.h"

#include <chrono>

namespace kiln::bench {

namespace {


void check(kiln_status status, const char* what) {
  if (status != KILN_STATUS_SUCCESS) throw BenchError(std::string(what) + ": " + kiln_last_error());
}

void check(const Status& status, const char* what) {
  if (!status.ok()) throw BenchError(std::string(what) + ": " + status.error().message);
}

}  // namespace

Timing run_kiln(const Inputs& inputs, const KernelSpec& spec, Launch& launch) {
  kiln_package* package = nullptr;
  if (inputs.kiln_open == "memory") {
    const std::string file = read_file(inputs.package);
    check(kiln_package_open_memory(file.data(), file.size(), KILN_OPEN_COPY, inputs.package.c_str(), &package),
          "kiln_package_open_memory");
  } else {
    check(kiln_package_open_file(inputs.package.c_str(), &package), "kiln_package_open_file");
  }
  Timing timing;
  settle_heap();
  const auto start = Clock::now();
  kiln_kernel* kernel = nullptr;
  check(kiln_package_get_kernel(package, spec.name, &kernel), "kiln_package_get_kernel");
  check(kiln_kernel_launch(kernel, kiln_dim3{launch.grid(), 1, 1}, kiln_dim3{launch.block(), 1, 1}, 0, nullptr,
                           launch.args(), launch.arg_count()),
        "kiln_kernel_launch");
  synchronize();
  timing.total_ms = since(start);
  kiln_package_destroy(package);
  return timing;
}

Timing run_kiln_timed(const Inputs& inputs, const KernelSpec& spec, Launch& launch) {
  Timing timing;
  // The driver is loaded here, outside the timed part; in (a) the first call loads it (cuInit is
  // already done by then, so that is dlopen of a loaded library and cuGetProcAddress).
  const auto load_start = Clock::now();
  driver::DriverLoad load = driver::load_system_driver();
  timing.driver_load_ms = since(load_start);
  if (!load.driver) throw BenchError("load_system_driver: " + load.message);
  auto timing_driver = std::make_shared<TimingDriver>(std::move(load.driver));
  core::set_driver_for_testing(timing_driver);

  std::unique_ptr<core::Package> package;
  if (inputs.kiln_open == "memory") {
    const std::string file = read_file(inputs.package);
    check(core::Package::open_memory(file.data(), file.size(), /*copy=*/true, inputs.package.c_str(), package),
          "opening the package from memory");
  } else {
    check(core::Package::open_file(inputs.package.c_str(), package), "opening the package");
  }
  // The open binds to the driver (libcuda is loaded): what is asked once per process is asked there.
  timing.open_driver_calls = timing_driver->calls();
  timing_driver->clear_by_call();
  settle_heap();
  const auto start = Clock::now();
  core::Kernel* kernel = nullptr;
  check(package->get_kernel(spec.name, kernel), "get_kernel");
  core::LaunchShape shape;
  shape.grid[0] = launch.grid();
  shape.block[0] = launch.block();
  check(kernel->launch(shape, nullptr, launch.args(), launch.arg_count()), "launch");
  const auto sync_start = Clock::now();
  synchronize();
  const double sync_ms = since(sync_start);
  timing.total_ms = since(start);
  timing.driver_ms = timing_driver->milliseconds() + sync_ms;
  timing.driver_calls = timing_driver->calls() - timing.open_driver_calls + 1;
  timing.driver_steps = timing_driver->by_call();
  timing.driver_steps.emplace_back("cuCtxSynchronize", sync_ms);
  package.reset();
  core::set_driver_for_testing(nullptr);
  return timing;
}

}  // namespace kiln::bench
