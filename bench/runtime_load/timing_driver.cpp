#include "timing_driver.hpp"

namespace kiln::bench {

using namespace kiln::driver;

CUresult TimingDriver::init() { return timed("cuInit", [&] { return m_inner->init(); }); }
CUresult TimingDriver::driver_get_version(int* version) {
  return timed("cuDriverGetVersion", [&] { return m_inner->driver_get_version(version); });
}
CUresult TimingDriver::device_get_count(int* count) { return timed("cuDeviceGetCount", [&] { return m_inner->device_get_count(count); }); }
CUresult TimingDriver::device_get(CUdevice* device, int ordinal) {
  return timed("cuDeviceGet", [&] { return m_inner->device_get(device, ordinal); });
}
CUresult TimingDriver::device_get_attribute(int* value, int attribute, CUdevice device) {
  return timed("cuDeviceGetAttribute", [&] { return m_inner->device_get_attribute(value, attribute, device); });
}
CUresult TimingDriver::ctx_get_current(CUcontext* context) {
  return timed("cuCtxGetCurrent", [&] { return m_inner->ctx_get_current(context); });
}
CUresult TimingDriver::ctx_set_current(CUcontext context) {
  return timed("cuCtxSetCurrent", [&] { return m_inner->ctx_set_current(context); });
}
CUresult TimingDriver::ctx_get_device(CUdevice* device) { return timed("cuCtxGetDevice", [&] { return m_inner->ctx_get_device(device); }); }
CUresult TimingDriver::primary_ctx_retain(CUcontext* context, CUdevice device) {
  return timed("cuDevicePrimaryCtxRetain", [&] { return m_inner->primary_ctx_retain(context, device); });
}
CUresult TimingDriver::library_load_data(CUlibrary* library, const void* image, std::string* error_log) {
  return timed("cuLibraryLoadData", [&] { return m_inner->library_load_data(library, image, error_log); });
}
CUresult TimingDriver::library_unload(CUlibrary library) { return timed("cuLibraryUnload", [&] { return m_inner->library_unload(library); }); }
CUresult TimingDriver::library_get_kernel(CUkernel* kernel, CUlibrary library, const char* name) {
  return timed("cuLibraryGetKernel", [&] { return m_inner->library_get_kernel(kernel, library, name); });
}
CUresult TimingDriver::library_get_global(CUdeviceptr* pointer, std::size_t* bytes, CUlibrary library,
                                          const char* name) {
  return timed("cuLibraryGetGlobal", [&] { return m_inner->library_get_global(pointer, bytes, library, name); });
}
CUresult TimingDriver::kernel_get_function(CUfunction* function, CUkernel kernel) {
  return timed("cuKernelGetFunction", [&] { return m_inner->kernel_get_function(function, kernel); });
}
CUresult TimingDriver::kernel_set_attribute(int attribute, int value, CUkernel kernel, CUdevice device) {
  return timed("cuKernelSetAttribute", [&] { return m_inner->kernel_set_attribute(attribute, value, kernel, device); });
}
CUresult TimingDriver::launch_kernel(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                     unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                                     CUstream stream, void** params, void** extra) {
  return timed("cuLaunchKernel", [&] {
    return m_inner->launch_kernel(function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream,
                                  params, extra);
  });
}
CUresult TimingDriver::launch_kernel_ex(const driver::CUlaunchConfig& config, CUfunction function, void** params,
                                        void** extra) {
  return timed("cuLaunchKernelEx", [&] { return m_inner->launch_kernel_ex(config, function, params, extra); });
}
CUresult TimingDriver::kernel_get_attribute(int* value, int attribute, driver::CUkernel kernel, driver::CUdevice device) {
  return timed("cuKernelGetAttribute", [&] { return m_inner->kernel_get_attribute(value, attribute, kernel, device); });
}
CUresult TimingDriver::occupancy_max_active_blocks(int* blocks, CUfunction function, int block_size,
                                                   std::size_t dynamic_shared_bytes) {
  return timed("cuOccupancyMaxActiveBlocksPerMultiprocessor", [&] { return m_inner->occupancy_max_active_blocks(blocks, function, block_size, dynamic_shared_bytes); });
}
CUresult TimingDriver::occupancy_max_potential_block_size(int* min_grid_size, int* block_size, CUfunction function,
                                                          std::size_t dynamic_shared_bytes, int block_size_limit) {
  return timed("cuOccupancyMaxPotentialBlockSize", [&] {
    return m_inner->occupancy_max_potential_block_size(min_grid_size, block_size, function, dynamic_shared_bytes,
                                                       block_size_limit);
  });
}
std::string TimingDriver::error_name(CUresult result) { return timed("cuGetErrorName", [&] { return m_inner->error_name(result); }); }

}  // namespace kiln::bench
