// A CUDA driver for tests without a GPU: devices, contexts, libraries and launches simulated in
// memory, with every call recorded. Images are identified by their text: a test image is a
// NUL-terminated string (e.g. "img:ops.cu:sm_90"), and the fake is told how each one behaves.
#pragma once

#include "driver/driver_api.hpp"

#include <cstddef>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace kiln::testing {

struct FakeDevice {
  int arch = 90;                      // compute capability major * 10 + minor
  bool integrated = false;
  int shared_memory_optin = 232448;   // attribute 97 (227 KiB, as on 9.0)
};

struct FakeLaunch {
  std::string kernel;                 // lowered name
  std::string image;                  // the image the kernel's library came from
  driver::CUdevice device = -1;       // the current context's device at launch
  unsigned grid[3] = {0, 0, 0};
  unsigned block[3] = {0, 0, 0};
  unsigned shared_bytes = 0;
  void* stream = nullptr;
  std::vector<std::vector<std::byte>> params;  // copied with the sizes in FakeDriver::param_sizes
  bool extended = false;              // through cuLaunchKernelEx
  std::vector<driver::CUlaunchAttribute> attributes;  // cuLaunchKernelEx's, copied
};

// A kernel attribute read (cuKernelGetAttribute) or an occupancy query.
struct FakeQuery {
  std::string call;                   // "cuKernelGetAttribute", "cuOccupancyMaxActiveBlocksPerMultiprocessor", ...
  std::string kernel;                 // lowered name
  driver::CUdevice device = -1;       // the device asked about (the current context's for occupancy)
  int attribute = -1;                 // CUfunction_attribute, for cuKernelGetAttribute
  int block_size = 0;                 // for occupancy: block size, or the limit for the suggestion
  std::size_t shared_bytes = 0;
};

struct FakeAttributeCall {
  int attribute = 0;
  int value = 0;
  std::string kernel;
  driver::CUdevice device = -1;
};

struct FakeLoadFailure {
  driver::CUresult result = driver::k_cuda_error_invalid_ptx;
  std::string log;                    // written to the JIT error log
};

class FakeDriver : public driver::DriverApi {
public:
  // ---- configuration: set before the runtime uses the driver ---------------------------------
  std::vector<FakeDevice> devices = {FakeDevice{}};
  int driver_version = 13000;
  std::map<std::string, FakeLoadFailure> load_failures;        // image text -> cuLibraryLoadData fails
  std::map<std::string, driver::CUresult> unusable_images;     // image text -> every kernel lookup fails
  std::map<std::string, std::string> load_logs;                // image text -> JIT log of a successful load
  std::map<std::string, bool> log_buffer_given;                // image text -> its last load was given a JIT log buffer
  std::set<std::string> missing_kernels;                       // lowered names no image holds (500)
  std::map<std::string, std::pair<driver::CUdeviceptr, std::size_t>> globals;  // lowered name -> global
  std::map<std::string, std::vector<std::size_t>> param_sizes;  // lowered name -> bytes copied per launch
  driver::CUresult launch_result = driver::k_cuda_success;
  // fake_driver_queries.cpp: cuLaunchKernelEx, kernel attributes and occupancy.
  bool has_launch_ex = true;          // false: like a driver without the entry point (result 36)
  std::map<int, int> kernel_attributes = {{0, 1024}, {1, 2048}, {4, 40}, {5, 90}, {6, 90}, {8, 49152}};
  driver::CUresult query_result = driver::k_cuda_success;  // every attribute and occupancy call
  int active_blocks = 6;              // cuOccupancyMaxActiveBlocksPerMultiprocessor's answer
  int suggested_min_grid = 264, suggested_block = 512;     // cuOccupancyMaxPotentialBlockSize's

  // ---- test helpers ---------------------------------------------------------------------------
  // Makes device `ordinal`'s primary context current on the calling thread (-1: no context).
  void make_current(int ordinal);
  std::vector<std::string> loads() const;            // image texts, in load order
  std::vector<std::string> unloads() const;          // image texts, in unload order
  std::vector<FakeLaunch> launches() const;
  std::vector<FakeAttributeCall> attribute_calls() const;
  int function_loads() const;                        // cuKernelGetFunction calls
  int primary_retains() const;
  int get_kernel_calls() const;                      // cuLibraryGetKernel calls
  std::vector<FakeQuery> queries() const;
  // What each cuLibraryGetKernel call asked for, in call order: the library's image text and the name.
  std::vector<std::pair<std::string, std::string>> kernel_lookups() const;
  // Every call the runtime made, in order, by the driver's name ("cuLaunchKernel"; a device attribute
  // with its name: "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)"), and clear_calls() to start
  // counting afresh. error_name (cuGetErrorName) is not a call the runtime makes on success: not listed.
  std::vector<std::string> calls() const;
  void clear_calls();

  // ---- DriverApi --------------------------------------------------------------------------------
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
  struct Library {
    std::string image;
    bool loaded = true;
  };
  struct KernelEntry {
    std::size_t library = 0;         // index into m_libraries
    std::string name;
  };
  // Handles are small integers cast to pointers: library i is (i + 1), kernel j is (j + 1).
  const Library* library_of(driver::CUlibrary handle) const;
  const KernelEntry* kernel_of(driver::CUkernel handle) const;
  int current_device_locked() const;  // -1 without a current context
  void record_locked(std::string call) { m_calls.push_back(std::move(call)); }
  // The launch both cuLaunchKernel and cuLaunchKernelEx record, or the CUresult that refuses it.
  driver::CUresult record_launch_locked(driver::CUfunction function, const unsigned grid[3], const unsigned block[3],
                                        unsigned shared_bytes, driver::CUstream stream, void** params,
                                        FakeLaunch& out);

  mutable std::mutex m_mutex;
  std::map<std::thread::id, int> m_current;   // thread -> device ordinal of its current context
  std::vector<Library> m_libraries;
  std::vector<KernelEntry> m_kernels;
  std::vector<std::string> m_loads, m_unloads;
  std::vector<std::pair<std::string, std::string>> m_kernel_lookups;
  std::vector<std::string> m_calls;
  std::vector<FakeLaunch> m_launches;
  std::vector<FakeAttributeCall> m_attribute_calls;
  std::vector<FakeQuery> m_queries;
  int m_function_loads = 0;
  int m_primary_retains = 0;
  int m_get_kernel_calls = 0;
};

}  // namespace kiln::testing
