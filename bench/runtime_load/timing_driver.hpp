// A DriverApi decorator that adds up the time spent inside the driver it wraps, so the benchmark
// can tell Kiln's own time from the driver's: installed through kiln::core::set_driver_for_testing.
#pragma once

#include "driver/driver_api.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace kiln::bench {

class TimingDriver final : public driver::DriverApi {
public:
  // Room for every entry point: recording a call allocates nothing, so the bookkeeping adds no
  // allocation (nor the page faults of a trimmed heap) to the time it counts as Kiln's own.
  explicit TimingDriver(std::unique_ptr<driver::DriverApi> inner) : m_inner(std::move(inner)) { m_by_call.reserve(32); }

  double milliseconds() const { return static_cast<double>(m_nanoseconds.load()) / 1e6; }
  std::uint64_t calls() const { return m_calls.load(); }
  // Milliseconds inside each driver call by name, in the order first made (the bench is single-threaded).
  std::vector<std::pair<std::string, double>> by_call() const { return {m_by_call.begin(), m_by_call.end()}; }
  void clear_by_call() { m_by_call.clear(); }   // keeps the room

  driver::CUresult init() override;
  driver::CUresult driver_get_version(int* version) override;
  driver::CUresult device_get_count(int* count) override;
  driver::CUresult device_get(driver::CUdevice* device, int ordinal) override;
  driver::CUresult device_get_attribute(int* value, int attribute, driver::CUdevice device) override;
  driver::CUresult ctx_get_current(driver::CUcontext* context) override;
  driver::CUresult ctx_set_current(driver::CUcontext context) override;
  driver::CUresult ctx_get_device(driver::CUdevice* device) override;
  driver::CUresult primary_ctx_retain(driver::CUcontext* context, driver::CUdevice device) override;
  driver::CUresult library_load_data(driver::CUlibrary* library, const void* image, std::string* error_log) override;
  driver::CUresult library_unload(driver::CUlibrary library) override;
  driver::CUresult library_get_kernel(driver::CUkernel* kernel, driver::CUlibrary library, const char* name) override;
  driver::CUresult library_get_global(driver::CUdeviceptr* pointer, std::size_t* bytes, driver::CUlibrary library,
                                      const char* name) override;
  driver::CUresult kernel_get_function(driver::CUfunction* function, driver::CUkernel kernel) override;
  driver::CUresult kernel_set_attribute(int attribute, int value, driver::CUkernel kernel,
                                        driver::CUdevice device) override;
  driver::CUresult launch_kernel(driver::CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                                 unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                                 driver::CUstream stream, void** params, void** extra) override;
  driver::CUresult launch_kernel_ex(const driver::CUlaunchConfig& config, driver::CUfunction function, void** params,
                                    void** extra) override;
  driver::CUresult kernel_get_attribute(int* value, int attribute, driver::CUkernel kernel,
                                        driver::CUdevice device) override;
  driver::CUresult occupancy_max_active_blocks(int* blocks, driver::CUfunction function, int block_size,
                                               std::size_t dynamic_shared_bytes) override;
  driver::CUresult occupancy_max_potential_block_size(int* min_grid_size, int* block_size, driver::CUfunction function,
                                                      std::size_t dynamic_shared_bytes, int block_size_limit) override;
  std::string error_name(driver::CUresult result) override;

private:
  // Runs one forwarded call and adds its duration.
  template <class Call>
  auto timed(const char* name, Call&& call) {
    const auto start = std::chrono::steady_clock::now();
    auto result = call();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    const auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
    m_nanoseconds += nanoseconds;
    ++m_calls;
    add(name, static_cast<double>(nanoseconds) / 1e6);
    return result;
  }
  void add(const char* name, double milliseconds) {
    for (auto& [known, total] : m_by_call) {
      if (std::strcmp(known, name) == 0) {
        total += milliseconds;
        return;
      }
    }
    m_by_call.emplace_back(name, milliseconds);
  }

  std::unique_ptr<driver::DriverApi> m_inner;
  std::atomic<std::int64_t> m_nanoseconds{0};
  std::atomic<std::uint64_t> m_calls{0};
  std::vector<std::pair<const char*, double>> m_by_call;   // names are the string literals of timing_driver.cpp
};

}  // namespace kiln::bench
