// What the GPU tests share: where the packages are, device memory, and inputs whose results are
// exact in float and double (so GPU results are compared with the CPU for equality).
#pragma once

#include <kiln/kiln.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kiln::gpu_test {

// The package `file` ("saxpy.kiln", "gpu.kiln"): in $KILN_GPU_TEST_PACKAGES if set, else where the
// build wrote it. Throws when neither is known.
std::string package_path(const std::string& file);
kiln::Package open_package(const std::string& file);

// Compute capability of device 0 as major * 10 + minor (90 on an H100).
int device_arch();

inline void check_cuda(cudaError_t error, const std::string& what) {
  if (error != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(error));
}

// Device memory of `count` T, in the primary context of device 0.
template <class T>
class DeviceBuffer {
public:
  explicit DeviceBuffer(std::size_t count) : m_count(count) {
    void* memory = nullptr;
    check_cuda(cudaMalloc(&memory, count * sizeof(T)), "cudaMalloc");
    m_data = static_cast<T*>(memory);
    check_cuda(cudaMemset(m_data, 0, count * sizeof(T)), "cudaMemset");
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { cudaFree(m_data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return m_data; }
  void upload(const std::vector<T>& host) {
    check_cuda(cudaMemcpy(m_data, host.data(), m_count * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  std::vector<T> download() const {
    std::vector<T> host(m_count);
    check_cuda(cudaMemcpy(host.data(), m_data, m_count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return host;
  }

private:
  T* m_data = nullptr;
  std::size_t m_count;
};

// Small integers times `step`: sums, products by -1.5 and a * x + y stay exact.
template <class T>
std::vector<T> ramp(std::size_t n, int period, T step = T(1)) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<int>(i % period)) * step;
  return v;
}

inline unsigned blocks_for(std::size_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

inline void synchronize() { check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

// A device address from kiln_package_get_global as a pointer for cudaMemcpy.
inline void* device_address(std::uint64_t pointer) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(pointer)); }

}  // namespace kiln::gpu_test
