// Device memory for the saxpy example, from the CUDA runtime: Kiln loads and launches kernels but
// leaves memory to the program (here cudaMalloc; the driver API or any CUDA library would do).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace saxpy_example {

// A failure before any result could be checked: exit status 2.
struct SetupError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw SetupError(std::string(what) + ": " + cudaGetErrorString(error));
}

// Device memory holding a copy of a host vector.
template <class T>
class DeviceBuffer {
public:
  explicit DeviceBuffer(const std::vector<T>& host) : m_count(host.size()) {
    void* memory = nullptr;
    check_cuda(cudaMalloc(&memory, bytes()), "cudaMalloc");
    m_data = static_cast<T*>(memory);
    check_cuda(cudaMemcpy(m_data, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  }
  ~DeviceBuffer() { cudaFree(m_data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return m_data; }
  std::vector<T> download() const {
    std::vector<T> host(m_count);
    check_cuda(cudaMemcpy(host.data(), m_data, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy to the host");
    return host;
  }

private:
  std::size_t bytes() const { return m_count * sizeof(T); }
  T* m_data = nullptr;
  std::size_t m_count;
};

}  // namespace saxpy_example
