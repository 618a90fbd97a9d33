// A DriverApi that answers every call at once, as a GPU machine's driver would answer it, and
// counts the calls: with it, the time a first launch takes is Kiln's own (main.cpp).
#pragma once

#include "driver/driver_api.hpp"

#include <atomic>
#include <cstdint>
#include <string>

namespace kiln::bench {

class NullDriver final : public driver::DriverApi {
public:
  std::uint64_t calls() const { return m_calls.load(std::memory_order_relaxed); }

  driver::CUresult init() override { return counted(); }
  driver::CUresult driver_get_version(int* version) override { *version = 13000; return counted(); }
  driver::CUresult device_get_count(int* count) override { *count = 1; return counted(); }
  driver::CUresult device_get(driver::CUdevice* device, int ordinal) override {
    *device = ordinal;
    return ordinal == 0 ? counted() : driver::k_cuda_error_invalid_device;
  }
  driver::CUresult device_get_attribute(int* value, int attribute, driver::CUdevice) override {
    switch (attribute) {
      case driver::k_attribute_compute_capability_major: *value = 9; break;
      case driver::k_attribute_compute_capability_minor: *value = 0; break;
      case driver::k_attribute_max_shared_memory_per_block_optin: *value = 232448; break;
      default: *value = 0; break;
    }
    return counted();
  }
  // A context is current, as in runtime_load: the program made device 0's primary context current.
  driver::CUresult ctx_get_current(driver::CUcontext* context) override {
    *context = reinterpret_cast<driver::CUcontext>(0x1000);
    return counted();
  }
  driver::CUresult ctx_set_current(driver::CUcontext) override { return counted(); }
  driver::CUresult ctx_get_device(driver::CUdevice* device) override { *device = 0; return counted(); }
  driver::CUresult primary_ctx_retain(driver::CUcontext* context, driver::CUdevice) override {
    *context = reinterpret_cast<driver::CUcontext>(0x1000);
    return counted();
  }
  driver::CUresult library_load_data(driver::CUlibrary* library, const void*, std::string*) override {
    *library = reinterpret_cast<driver::CUlibrary>(m_next.fetch_add(1) + 1);
    return counted();
  }
  driver::CUresult library_unload(driver::CUlibrary) override { return counted(); }
  driver::CUresult library_get_kernel(driver::CUkernel* kernel, driver::CUlibrary, const char*) override {
    *kernel = reinterpret_cast<driver::CUkernel>(m_next.fetch_add(1) + 1);
    return counted();
  }
  driver::CUresult library_get_global(driver::CUdeviceptr* pointer, std::size_t* bytes, driver::CUlibrary,
                                      const char*) override {
    *pointer = 0x10000;
    *bytes = 4;
    return counted();
  }
  driver::CUresult kernel_get_function(driver::CUfunction* function, driver::CUkernel kernel) override {
    *function = reinterpret_cast<driver::CUfunction>(kernel);
    return counted();
  }
  driver::CUresult kernel_set_attribute(int, int, driver::CUkernel, driver::CUdevice) override { return counted(); }
  driver::CUresult launch_kernel(driver::CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, driver::CUstream, void**, void**) override {
    return counted();
  }
  driver::CUresult launch_kernel_ex(const driver::CUlaunchConfig&, driver::CUfunction, void**, void**) override {
    return counted();
  }
  driver::CUresult kernel_get_attribute(int* value, int, driver::CUkernel, driver::CUdevice) override {
    *value = 0;
    return counted();
  }
  driver::CUresult occupancy_max_active_blocks(int* blocks, driver::CUfunction, int, std::size_t) override {
    *blocks = 1;
    return counted();
  }
  driver::CUresult occupancy_max_potential_block_size(int* min_grid_size, int* block_size, driver::CUfunction,
                                                      std::size_t, int) override {
    *min_grid_size = 1;
    *block_size = 256;
    return counted();
  }
  std::string error_name(driver::CUresult result) override { return std::to_string(result); }

private:
  driver::CUresult counted() {
    m_calls.fetch_add(1, std::memory_order_relaxed);
    return driver::k_cuda_success;
  }

  std::atomic<std::uint64_t> m_calls{0};
  std::atomic<std::uintptr_t> m_next{0};
};

}  // namespace kiln::bench
