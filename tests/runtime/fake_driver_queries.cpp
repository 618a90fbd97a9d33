// The fake driver's cuLaunchKernelEx (recording the launch attributes it is given), kernel attributes
// and occupancy queries.
#include "fake_driver.hpp"

namespace kiln::testing {

using driver::CUresult;

std::vector<FakeQuery> FakeDriver::queries() const {
  std::lock_guard lock(m_mutex);
  return m_queries;
}

CUresult FakeDriver::launch_kernel_ex(const driver::CUlaunchConfig& config, driver::CUfunction function,
                                      void** params, void** /*extra*/) {
  std::lock_guard lock(m_mutex);
  record_locked("cuLaunchKernelEx");
  if (!has_launch_ex) return driver::k_cuda_error_call_requires_newer_driver;
  // The real driver reads num_attrs entries from attrs; a null list with a count would crash it.
  if (config.num_attrs > 0 && config.attrs == nullptr) return driver::k_cuda_error_invalid_value;
  const unsigned grid[3] = {config.grid_dim_x, config.grid_dim_y, config.grid_dim_z};
  const unsigned block[3] = {config.block_dim_x, config.block_dim_y, config.block_dim_z};
  FakeLaunch launch;
  const CUresult r = record_launch_locked(function, grid, block, config.shared_mem_bytes, config.stream, params, launch);
  if (r != driver::k_cuda_success) return r;
  launch.extended = true;
  launch.attributes.assign(config.attrs, config.attrs + config.num_attrs);
  m_launches.push_back(std::move(launch));
  return driver::k_cuda_success;
}

CUresult FakeDriver::kernel_get_attribute(int* value, int attribute, driver::CUkernel kernel,
                                          driver::CUdevice device) {
  std::lock_guard lock(m_mutex);
  record_locked("cuKernelGetAttribute");
  const KernelEntry* k = kernel_of(kernel);
  if (!k || device < 0 || static_cast<std::size_t>(device) >= devices.size()) return driver::k_cuda_error_invalid_value;
  m_queries.push_back(FakeQuery{"cuKernelGetAttribute", k->name, device, attribute, 0, 0});
  if (query_result != driver::k_cuda_success) return query_result;
  auto it = kernel_attributes.find(attribute);
  if (it == kernel_attributes.end()) return driver::k_cuda_error_invalid_value;
  *value = it->second;
  return driver::k_cuda_success;
}

CUresult FakeDriver::occupancy_max_active_blocks(int* blocks, driver::CUfunction function, int block_size,
                                                 std::size_t dynamic_shared_bytes) {
  std::lock_guard lock(m_mutex);
  record_locked("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  // The runtime passes the CUfunction from cuKernelGetFunction, which this fake makes equal to the kernel.
  const KernelEntry* k = kernel_of(reinterpret_cast<driver::CUkernel>(function));
  if (!k) return driver::k_cuda_error_invalid_value;
  m_queries.push_back(FakeQuery{"cuOccupancyMaxActiveBlocksPerMultiprocessor", k->name, current_device_locked(), -1,
                                block_size, dynamic_shared_bytes});
  if (query_result != driver::k_cuda_success) return query_result;
  *blocks = active_blocks;
  return driver::k_cuda_success;
}

CUresult FakeDriver::occupancy_max_potential_block_size(int* min_grid_size, int* block_size,
                                                        driver::CUfunction function, std::size_t dynamic_shared_bytes,
                                                        int block_size_limit) {
  std::lock_guard lock(m_mutex);
  record_locked("cuOccupancyMaxPotentialBlockSize");
  const KernelEntry* k = kernel_of(reinterpret_cast<driver::CUkernel>(function));
  if (!k) return driver::k_cuda_error_invalid_value;
  m_queries.push_back(FakeQuery{"cuOccupancyMaxPotentialBlockSize", k->name, current_device_locked(), -1,
                                block_size_limit, dynamic_shared_bytes});
  if (query_result != driver::k_cuda_success) return query_result;
  *min_grid_size = suggested_min_grid;
  *block_size = suggested_block;
  return driver::k_cuda_success;
}

}  // namespace kiln::testing
