// A kernel of a package, as a kiln_kernel handle points to it: one per KERNELS record, owned by the
// package, created on first request. It keeps, per device, the CUkernel resolved from the library
// its unit loaded for that device, and the dynamic shared memory limit already raised there.
#pragma once

#include "util/result.hpp"
#include "driver/driver_api.hpp"
#include "format/package_reader.hpp"
#include "kiln/launch.h"
#include "platform/shared_mutex.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::core {

class Package;

// Dynamic shared memory a kernel may use without raising its limit (CUDA's default, 48 KiB).
inline constexpr std::uint32_t k_default_dynamic_shared_limit = 48 * 1024;

struct LaunchShape {
  std::uint32_t grid[3] = {1, 1, 1};
  std::uint32_t block[3] = {1, 1, 1};
  std::uint32_t shared_memory_bytes = 0;
};

// What launch_ex passes to cuLaunchKernelEx besides the shape (kiln_launch_config's attributes).
struct LaunchAttributes {
  std::uint32_t cluster[3] = {0, 0, 0};  // all 0: no cluster attribute
  bool cooperative = false;
  bool has_priority = false;
  int priority = 0;
};

class Kernel {
public:
  Kernel(Package& package, std::uint32_t index);

  Package& package() const { return m_package; }
  const char* name() const { return m_view.canonical_name.data(); }  // NUL-terminated in STRINGS
  const char* lowered_name() const { return m_view.lowered_name.data(); }   // the symbol in the image

  // As kiln_kernel_params: `count` is KILN_PARAMS_UNKNOWN when the package does not record them.
  Status params(std::size_t* count, std::size_t* sizes, std::size_t* offsets, std::size_t capacity) const;

  // The CUkernel for `device`, loading the unit's image and checking that the kernel resolves in it on
  // first use (cuLibraryLoadData can succeed for an image the device cannot run).
  Status resolve(driver::DriverApi& driver, driver::CUdevice device, driver::CUkernel& out);
  // Resolves on the current device and loads the kernel into the current context (cuKernelGetFunction).
  Status load_function(driver::DriverApi& driver, driver::CUdevice device);

  // Launches on the current context's device: checks the argument count, raises the dynamic shared
  // memory limit if needed, then cuLaunchKernel with the CUkernel cast to CUfunction (supported by the
  // driver for context-less kernels: it runs in the current context). In a process with one device,
  // once the kernel has resolved there, a launch that needs no more than the default dynamic shared
  // memory is that one driver call: every context is on that device.
  Status launch(const LaunchShape& shape, void* stream, void** args, std::size_t arg_count);
  // The same checks and shared memory handling, then cuLaunchKernelEx with the attributes set.
  Status launch_ex(const LaunchShape& shape, const LaunchAttributes& attributes, void* stream, void** args,
                   std::size_t arg_count);
  // The CUkernel for the current context's device.
  Status handle(void*& out);

  // kernel_query.cpp: attributes and occupancy on the current context's device.
  // `attribute` is a kiln_kernel_attribute_kind; an unknown one is INVALID_ARGUMENT.
  Status attribute(int attribute, int& value);
  Status max_active_blocks(int block_size, std::size_t dynamic_shared_bytes, int& blocks);
  Status suggest_block_size(std::size_t dynamic_shared_bytes, int block_size_limit, int& min_grid_size,
                            int& block_size);

  std::string subject() const;   // "app.kiln: kernel 'saxpy'"

private:
  struct PerDevice {
    driver::CUdevice device = 0;
    driver::CUkernel kernel = nullptr;
    std::uint32_t shared_limit = k_default_dynamic_shared_limit;  // the largest value set so far
  };
  Status ensure_shared_memory(driver::DriverApi& driver, driver::CUdevice device, driver::CUkernel kernel,
                              std::uint32_t bytes);
  // Checked before the driver is touched: a wrong count would make the driver read past `args`.
  Status check_arguments(void** args, std::size_t arg_count) const;
  // Where a launch of `shape` goes without asking the driver: the kernel resolved on the process's
  // only device, unless the shape needs its dynamic shared memory limit raised. False: ask.
  bool known_target(const LaunchShape& shape, driver::DriverApi*& driver, driver::CUdevice& device,
                    driver::CUkernel& kernel) const;
  // Where it goes, asked: the current device, the CUkernel there, and the dynamic shared memory limit
  // raised when the shape needs it.
  Status current_target(const LaunchShape& shape, driver::DriverApi*& driver, driver::CUdevice& device,
                        driver::CUkernel& kernel);
  // What launch and launch_ex share: the checks, the target, `call_driver(driver, kernel)` (the
  // launch, named `call` in a failure) and, when the known target finds no usable context current
  // on this thread, the launch again after current_target() (which makes device 0's primary
  // context current, as any first call does, or says why it cannot).
  template <class CallDriver>
  Status launch_with(const LaunchShape& shape, void** args, std::size_t arg_count, const char* call,
                     CallDriver&& call_driver);
  // The CUfunction of this kernel in the current context (cuKernelGetFunction), for an occupancy
  // query with `dynamic_shared_bytes`: the kernel's limit raised as a launch of that much would.
  Status occupancy_function(std::size_t dynamic_shared_bytes, driver::DriverApi*& driver, driver::CUdevice& device,
                            driver::CUfunction& function);
  // Raises the dynamic shared memory limit as a launch of `bytes` would, if the device allows that much.
  Status raise_shared_limit_for_query(driver::DriverApi& driver, driver::CUdevice device, driver::CUkernel kernel,
                                      std::size_t bytes);
  // "cuLaunchKernelEx: CUDA_ERROR_... (n)", with a hint when the driver lacks the call.
  std::string driver_failure(driver::DriverApi& driver, const char* call, driver::CUresult result) const;

  Package& m_package;
  format::KernelView m_view;
  mutable platform::SharedMutex m_mutex;   // guards m_devices
  std::vector<PerDevice> m_devices;    // few entries: one per device this kernel ran on
  // The first entry's kernel and device, for launches that need not ask which device is current
  // (known_target): the device is written before the kernel is published (release).
  std::atomic<driver::CUkernel> m_first_kernel{nullptr};
  driver::CUdevice m_first_device = 0;
};

}  // namespace kiln::core
