#include "core/kernel.hpp"

#include "core/device.hpp"
#include "core/driver_access.hpp"
#include "core/package.hpp"

#include <mutex>

namespace kiln::core {

namespace {

using driver::CUresult;

// Results that mean "this image cannot run on this device" rather than a broken driver call.
bool means_no_image(CUresult r) {
  return r == driver::k_cuda_error_no_binary_for_gpu || r == driver::k_cuda_error_invalid_ptx ||
         r == driver::k_cuda_error_unsupported_ptx_version || r == driver::k_cuda_error_jit_compilation_disabled;
}

}  // namespace

Kernel::Kernel(Package& package, std::uint32_t index) : m_package(package), m_view(package.reader().kernel(index)) {}

std::string Kernel::subject() const { return m_package.label() + ": kernel '" + std::string(m_view.canonical_name) + "'"; }

Status Kernel::params(std::size_t* count, std::size_t* sizes, std::size_t* offsets, std::size_t capacity) const {
  if (!count) return fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_kernel_params: count is NULL");
  if ((m_view.flags & format::k_kernel_params_known) == 0) {
    *count = KILN_PARAMS_UNKNOWN;
    return {};
  }
  *count = m_view.param_count;
  const std::size_t filled = std::min<std::size_t>(capacity, m_view.param_count);
  for (std::size_t i = 0; i < filled; ++i) {
    const format::ParamRecord p = m_view.param(static_cast<std::uint32_t>(i));
    if (sizes) sizes[i] = p.size;
    if (offsets) offsets[i] = p.offset;
  }
  return {};
}

Status Kernel::resolve(driver::DriverApi& driver, driver::CUdevice device, driver::CUkernel& out) {
  // The first device's without the lock: most processes have one device.
  if (driver::CUkernel first = m_first_kernel.load(std::memory_order_acquire); first && m_first_device == device) {
    out = first;
    return {};
  }
  {
    std::shared_lock lock(m_mutex);
    for (const PerDevice& d : m_devices) {
      if (d.device == device) {
        out = d.kernel;
        return {};
      }
    }
  }
  // Resolved without the kernel's lock (the library load has its own): racing threads get the same
  // library and the same CUkernel, and the first to insert wins.
  UnitLibrary unit;
  KILN_TRY(m_package.library_for(driver, m_view.unit, device, m_view.canonical_name, unit, m_view.index));
  driver::CUkernel kernel = nullptr;
  const CUresult r = driver.library_get_kernel(&kernel, unit.library, m_view.lowered_name.data());
  if (r != driver::k_cuda_success || !kernel) {
    const std::string why = r != driver::k_cuda_success ? describe_result(driver, r) : std::string("no kernel returned");
    return fail(means_no_image(r) ? KILN_STATUS_NO_IMAGE_FOR_DEVICE : KILN_STATUS_DRIVER_ERROR,
                subject() + " (" + std::string(m_view.lowered_name) + ") does not resolve in image " +
                    Package::image_name(unit) + " loaded for " + unit.device.describe() +
                    ": cuLibraryGetKernel: " + why + Package::jit_log_suffix(unit));
  }
  std::unique_lock lock(m_mutex);
  for (const PerDevice& d : m_devices) {
    if (d.device == device) {
      out = d.kernel;
      return {};
    }
  }
  m_devices.push_back(PerDevice{device, kernel, k_default_dynamic_shared_limit});
  if (m_devices.size() == 1) {
    m_first_device = device;
    m_first_kernel.store(kernel, std::memory_order_release);
  }
  out = kernel;
  return {};
}

Status Kernel::load_function(driver::DriverApi& driver, driver::CUdevice device) {
  driver::CUkernel kernel = nullptr;
  KILN_TRY(resolve(driver, device, kernel));
  driver::CUfunction function = nullptr;
  const CUresult r = driver.kernel_get_function(&function, kernel);
  if (r != driver::k_cuda_success) {
    return fail(KILN_STATUS_DRIVER_ERROR, subject() + ": loading it into the context of device " +
                                              std::to_string(device) + " failed: cuKernelGetFunction: " +
                                              describe_result(driver, r));
  }
  return {};
}

Status Kernel::ensure_shared_memory(driver::DriverApi& driver, driver::CUdevice device, driver::CUkernel kernel,
                                    std::uint32_t bytes) {
  {
    std::shared_lock lock(m_mutex);
    for (const PerDevice& d : m_devices) {
      if (d.device == device && d.shared_limit >= bytes) return {};
    }
  }
  int optin = 0;
  KILN_TRY(m_package.devices().shared_memory_optin_limit(driver, device, optin));
  if (optin < 0 || bytes > static_cast<std::uint32_t>(optin)) {
    return fail(KILN_STATUS_ARGUMENT_MISMATCH, subject() + " asks for " + std::to_string(bytes) +
                                                   " bytes of dynamic shared memory, but device " +
                                                   std::to_string(device) + " allows at most " +
                                                   std::to_string(optin) + " per block");
  }
  // Under the exclusive lock, so the attribute is set once per (kernel, device) and size.
  std::unique_lock lock(m_mutex);
  for (PerDevice& d : m_devices) {
    if (d.device != device) continue;
    if (d.shared_limit >= bytes) return {};
    const CUresult r = driver.kernel_set_attribute(driver::k_function_attribute_max_dynamic_shared_size_bytes,
                                                   static_cast<int>(bytes), kernel, device);
    if (r != driver::k_cuda_success) {
      return fail(KILN_STATUS_DRIVER_ERROR, subject() + ": raising its dynamic shared memory limit to " +
                                                std::to_string(bytes) + " bytes on device " + std::to_string(device) +
                                                " failed: cuKernelSetAttribute: " + describe_result(driver, r));
    }
    d.shared_limit = bytes;
    return {};
  }
  return fail(KILN_STATUS_INTERNAL_ERROR, subject() + ": not resolved on device " + std::to_string(device));
}

Status Kernel::check_arguments(void** args, std::size_t arg_count) const {
  if ((m_view.flags & format::k_kernel_params_known) != 0 && arg_count != m_view.param_count) {
    return fail(KILN_STATUS_ARGUMENT_MISMATCH, subject() + " takes " + std::to_string(m_view.param_count) +
                                                   " arguments, " + std::to_string(arg_count) + " given");
  }
  if (!args && arg_count > 0) {
    return fail(KILN_STATUS_INVALID_ARGUMENT, subject() + ": args is NULL but arg_count is " + std::to_string(arg_count));
  }
  return {};
}

bool Kernel::known_target(const LaunchShape& shape, driver::DriverApi*& driver, driver::CUdevice& device,
                          driver::CUkernel& kernel) const {
  if (shape.shared_memory_bytes > k_default_dynamic_shared_limit) return false;  // a limit per device to check
  kernel = m_first_kernel.load(std::memory_order_acquire);
  // A resolved kernel implies the package acquired its driver (before, in the thread that published it).
  if (!kernel || !m_package.devices().single_device()) return false;
  driver = m_package.acquired_driver();
  device = m_first_device;
  return true;
}

Status Kernel::current_target(const LaunchShape& shape, driver::DriverApi*& driver, driver::CUdevice& device,
                              driver::CUkernel& kernel) {
  KILN_TRY(m_package.current(driver, device));
  KILN_TRY(resolve(*driver, device, kernel));
  if (shape.shared_memory_bytes > k_default_dynamic_shared_limit) {
    KILN_TRY(ensure_shared_memory(*driver, device, kernel, shape.shared_memory_bytes));
  }
  return {};
}

template <class CallDriver>
Status Kernel::launch_with(const LaunchShape& shape, void** args, std::size_t arg_count, const char* call,
                           CallDriver&& call_driver) {
  KILN_TRY(check_arguments(args, arg_count));
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  driver::CUkernel kernel = nullptr;
  const bool known = known_target(shape, driver, device, kernel);
  if (!known) KILN_TRY(current_target(shape, driver, device, kernel));
  CUresult r = call_driver(*driver, kernel);
  // Refused before anything ran: no context current on this thread, or one that is gone.
  if (known && (r == driver::k_cuda_error_invalid_context || r == driver::k_cuda_error_context_is_destroyed)) {
    KILN_TRY(current_target(shape, driver, device, kernel));
    r = call_driver(*driver, kernel);
  }
  if (r != driver::k_cuda_success) {
    return fail(KILN_STATUS_DRIVER_ERROR, subject() + ": launch on device " + std::to_string(device) +
                                              " failed: " + driver_failure(*driver, call, r));
  }
  return {};
}

std::string Kernel::driver_failure(driver::DriverApi& driver, const char* call, CUresult result) const {
  std::string text = std::string(call) + ": " + describe_result(driver, result);
  // What a driver without the entry point answers (DriverApi's optional calls).
  if (result == driver::k_cuda_error_call_requires_newer_driver) {
    text += "; this driver does not provide " + std::string(call) + ": install a newer NVIDIA driver";
  }
  return text;
}

Status Kernel::launch(const LaunchShape& shape, void* stream, void** args, std::size_t arg_count) {
  return launch_with(shape, args, arg_count, "cuLaunchKernel", [&](driver::DriverApi& driver, driver::CUkernel kernel) {
    return driver.launch_kernel(reinterpret_cast<driver::CUfunction>(kernel), shape.grid[0], shape.grid[1],
                                shape.grid[2], shape.block[0], shape.block[1], shape.block[2],
                                shape.shared_memory_bytes, static_cast<driver::CUstream>(stream), args, nullptr);
  });
}

Status Kernel::launch_ex(const LaunchShape& shape, const LaunchAttributes& attributes, void* stream, void** args,
                         std::size_t arg_count) {
  // Only the attributes asked for: a cluster or cooperative attribute the device does not support
  // fails the launch even with a neutral value.
  driver::CUlaunchAttribute list[3];
  unsigned count = 0;
  if (attributes.cluster[0] != 0) {
    list[count].id = driver::k_launch_attribute_cluster_dimension;
    list[count].value.cluster_dim = {attributes.cluster[0], attributes.cluster[1], attributes.cluster[2]};
    ++count;
  }
  if (attributes.cooperative) {
    list[count].id = driver::k_launch_attribute_cooperative;
    list[count].value.cooperative = 1;
    ++count;
  }
  if (attributes.has_priority) {
    list[count].id = driver::k_launch_attribute_priority;
    list[count].value.priority = attributes.priority;
    ++count;
  }
  driver::CUlaunchConfig config;
  config.grid_dim_x = shape.grid[0], config.grid_dim_y = shape.grid[1], config.grid_dim_z = shape.grid[2];
  config.block_dim_x = shape.block[0], config.block_dim_y = shape.block[1], config.block_dim_z = shape.block[2];
  config.shared_mem_bytes = shape.shared_memory_bytes;
  config.stream = static_cast<driver::CUstream>(stream);
  config.attrs = count > 0 ? list : nullptr;
  config.num_attrs = count;
  return launch_with(shape, args, arg_count, "cuLaunchKernelEx", [&](driver::DriverApi& driver, driver::CUkernel kernel) {
    return driver.launch_kernel_ex(config, reinterpret_cast<driver::CUfunction>(kernel), args, nullptr);
  });
}

Status Kernel::handle(void*& out) {
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  KILN_TRY(m_package.current(driver, device));
  driver::CUkernel kernel = nullptr;
  KILN_TRY(resolve(*driver, device, kernel));
  out = kernel;
  return {};
}

}  // namespace kiln::core
