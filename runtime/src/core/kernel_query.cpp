// Kernel attributes (cuKernelGetAttribute) and occupancy (cuOccupancy*) on the current context's
// device: kiln_kernel_attribute, kiln_kernel_max_active_blocks, kiln_kernel_suggest_block_size.
#include "core/device.hpp"
#include "core/driver_access.hpp"
#include "core/kernel.hpp"
#include "core/package.hpp"

#include <iterator>

namespace kiln::core {

namespace {

// kiln_kernel_attribute_kind (Kiln's numbers, written in stone) to CUfunction_attribute, with the
// name messages use.
struct AttributeEntry {
  int kind;
  int cu_attribute;
  const char* name;
};

constexpr AttributeEntry k_attributes[] = {
    {KILN_KERNEL_ATTRIBUTE_MAX_THREADS_PER_BLOCK, driver::k_function_attribute_max_threads_per_block,
     "max threads per block"},
    {KILN_KERNEL_ATTRIBUTE_REGISTERS, driver::k_function_attribute_num_regs, "registers"},
    {KILN_KERNEL_ATTRIBUTE_STATIC_SHARED_BYTES, driver::k_function_attribute_shared_size_bytes, "static shared bytes"},
    {KILN_KERNEL_ATTRIBUTE_CONST_BYTES, driver::k_function_attribute_const_size_bytes, "const bytes"},
    {KILN_KERNEL_ATTRIBUTE_LOCAL_BYTES, driver::k_function_attribute_local_size_bytes, "local bytes"},
    {KILN_KERNEL_ATTRIBUTE_MAX_DYNAMIC_SHARED_BYTES, driver::k_function_attribute_max_dynamic_shared_size_bytes,
     "max dynamic shared bytes"},
    {KILN_KERNEL_ATTRIBUTE_PTX_VERSION, driver::k_function_attribute_ptx_version, "PTX version"},
    {KILN_KERNEL_ATTRIBUTE_BINARY_VERSION, driver::k_function_attribute_binary_version, "binary version"},
    {KILN_KERNEL_ATTRIBUTE_CACHE_MODE_CA, driver::k_function_attribute_cache_mode_ca, "cache mode ca"},
    {KILN_KERNEL_ATTRIBUTE_PREFERRED_SHARED_CARVEOUT, driver::k_function_attribute_preferred_shared_memory_carveout,
     "preferred shared carveout"},
    {KILN_KERNEL_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, driver::k_function_attribute_cluster_size_must_be_set,
     "cluster size must be set"},
    {KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, driver::k_function_attribute_required_cluster_width,
     "required cluster width"},
    {KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, driver::k_function_attribute_required_cluster_height,
     "required cluster height"},
    {KILN_KERNEL_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, driver::k_function_attribute_required_cluster_depth,
     "required cluster depth"},
    {KILN_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
     driver::k_function_attribute_non_portable_cluster_size_allowed, "non-portable cluster size allowed"},
    {KILN_KERNEL_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY,
     driver::k_function_attribute_cluster_scheduling_policy_preference, "cluster scheduling policy"},
};

const AttributeEntry* find_attribute(int kind) {
  for (const AttributeEntry& entry : k_attributes) {
    if (entry.kind == kind) return &entry;
  }
  return nullptr;
}

}  // namespace

Status Kernel::attribute(int attribute, int& value) {
  value = 0;
  const AttributeEntry* entry = find_attribute(attribute);
  if (!entry) {
    return fail(KILN_STATUS_INVALID_ARGUMENT, subject() + ": no kernel attribute " + std::to_string(attribute) +
                                                  " (kiln_kernel_attribute_kind runs from 1 to " +
                                                  std::to_string(std::size(k_attributes)) + ")");
  }
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  KILN_TRY(m_package.current(driver, device));
  driver::CUkernel kernel = nullptr;
  KILN_TRY(resolve(*driver, device, kernel));
  int out = 0;
  const driver::CUresult r = driver->kernel_get_attribute(&out, entry->cu_attribute, kernel, device);
  if (r != driver::k_cuda_success) {
    return fail(KILN_STATUS_DRIVER_ERROR, subject() + ": reading its " + entry->name + " on device " +
                                              std::to_string(device) + " failed: " +
                                              driver_failure(*driver, "cuKernelGetAttribute", r));
  }
  value = out;
  return {};
}

Status Kernel::occupancy_function(std::size_t dynamic_shared_bytes, driver::DriverApi*& driver,
                                  driver::CUdevice& device, driver::CUfunction& function) {
  driver::CUkernel kernel = nullptr;
  KILN_TRY(m_package.current(driver, device));
  KILN_TRY(resolve(*driver, device, kernel));
  const driver::CUresult r = driver->kernel_get_function(&function, kernel);
  if (r != driver::k_cuda_success) {
    return fail(KILN_STATUS_DRIVER_ERROR, subject() + ": loading it into the context of device " +
                                              std::to_string(device) + " failed: " +
                                              driver_failure(*driver, "cuKernelGetFunction", r));
  }
  return raise_shared_limit_for_query(*driver, device, kernel, dynamic_shared_bytes);
}

// Occupancy with more than 48 KiB of dynamic shared memory is only what a launch gets once the
// kernel's limit is raised, which Kiln's launches do themselves: so raise it here too, unless the
// device cannot give that much (then the driver's answer, no block fits, is the true one).
Status Kernel::raise_shared_limit_for_query(driver::DriverApi& driver, driver::CUdevice device,
                                            driver::CUkernel kernel, std::size_t bytes) {
  if (bytes <= k_default_dynamic_shared_limit) return {};
  int optin = 0;
  KILN_TRY(m_package.devices().shared_memory_optin_limit(driver, device, optin));
  if (optin < 0 || bytes > static_cast<std::size_t>(optin)) return {};
  return ensure_shared_memory(driver, device, kernel, static_cast<std::uint32_t>(bytes));
}

Status Kernel::max_active_blocks(int block_size, std::size_t dynamic_shared_bytes, int& blocks) {
  blocks = 0;
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  driver::CUfunction function = nullptr;
  KILN_TRY(occupancy_function(dynamic_shared_bytes, driver, device, function));
  int out = 0;
  const driver::CUresult r = driver->occupancy_max_active_blocks(&out, function, block_size, dynamic_shared_bytes);
  if (r != driver::k_cuda_success) {
    return fail(KILN_STATUS_DRIVER_ERROR,
                subject() + ": occupancy of blocks of " + std::to_string(block_size) + " threads with " +
                    std::to_string(dynamic_shared_bytes) + " bytes of dynamic shared memory on device " +
                    std::to_string(device) + " failed: " +
                    driver_failure(*driver, "cuOccupancyMaxActiveBlocksPerMultiprocessor", r));
  }
  blocks = out;
  return {};
}

Status Kernel::suggest_block_size(std::size_t dynamic_shared_bytes, int block_size_limit, int& min_grid_size,
                                  int& block_size) {
  min_grid_size = 0;
  block_size = 0;
  driver::DriverApi* driver = nullptr;
  driver::CUdevice device = 0;
  driver::CUfunction function = nullptr;
  KILN_TRY(occupancy_function(dynamic_shared_bytes, driver, device, function));
  int grid = 0, block = 0;
  const driver::CUresult r =
      driver->occupancy_max_potential_block_size(&grid, &block, function, dynamic_shared_bytes, block_size_limit);
  if (r != driver::k_cuda_success) {
    return fail(KILN_STATUS_DRIVER_ERROR,
                subject() + ": suggesting a block size with " + std::to_string(dynamic_shared_bytes) +
                    " bytes of dynamic shared memory on device " + std::to_string(device) + " failed: " +
                    driver_failure(*driver, "cuOccupancyMaxPotentialBlockSize", r));
  }
  min_grid_size = grid;
  block_size = block;
  return {};
}

}  // namespace kiln::core
