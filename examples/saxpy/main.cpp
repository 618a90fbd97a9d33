// The saxpy example: takes kernels from a Kiln package, runs them on memory from the CUDA runtime,
// and checks every result against the CPU.
//
//   saxpy [--if-gpu] [package.kiln]      (default: the package named "saxpy", found by the runtime)
//
// Exit status: 0 every result matches, 1 a result differs, 2 setup failed (no GPU, no package, ...).
// With --if-gpu, a machine without a usable GPU is not a failure: the package is opened and listed,
// the reason is printed, and the status is 0 (the README's first command uses this).
//
// The CUDA runtime is linked statically (cudart_static) and, like Kiln, finds the driver itself at
// run time, so this program starts on a machine without one and says why it cannot go on.
#include "device_buffer.hpp"

#include <kiln/kiln.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using saxpy_example::check_cuda;
using saxpy_example::DeviceBuffer;
using saxpy_example::SetupError;

struct NoGpu : SetupError {
  using SetupError::SetupError;
};

// Inputs are small integers (and multiples of 0.5), so every result below is exact in float and
// double whatever the order of additions or the use of FMA: results are compared for equality.
template <class T>
std::vector<T> ramp(std::size_t n, int period, T step = T(1)) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<int>(i % period)) * step;
  return v;
}

// Prints one line for a kernel; true when `got` equals `want`.
template <class T>
bool report(const char* kernel, const std::vector<T>& got, const std::vector<T>& want, double milliseconds) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      std::printf("  %-24s MISMATCH at [%zu]: GPU %.17g, CPU %.17g\n", kernel, i, static_cast<double>(got[i]),
                  static_cast<double>(want[i]));
      return false;
    }
  }
  std::printf("  %-24s %8zu values match   first launch %.3f ms (lookup, load if new, run)\n", kernel, want.size(),
              milliseconds);
  return true;
}

// Looks the kernel up, launches it with `args` and waits: the time a program waits for its first
// result, including the image load the first request of a unit makes.
template <class... Args>
double run(const kiln::Package& package, const char* name, unsigned grid, unsigned block, Args... args) {
  const auto start = std::chrono::steady_clock::now();
  package.kernel(name).launch(grid, block, 0, nullptr, args...);
  check_cuda(cudaDeviceSynchronize(), name);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

unsigned blocks_for(std::size_t n, unsigned block) { return static_cast<unsigned>((n + block - 1) / block); }

bool run_saxpy(const kiln::Package& package) {
  const int n = (1 << 20) + 3;  // not a multiple of the block: the bounds check matters
  const float a = 2.5f;
  const std::vector<float> x = ramp<float>(n, 1021), y = ramp<float>(n, 7);
  DeviceBuffer<float> dx(x), dy(y);
  const double ms = run(package, "saxpy", blocks_for(n, 256), 256, a, static_cast<const float*>(dx.get()), dy.get(), n);
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) want[i] = a * x[i] + y[i];
  return report("saxpy", dy.download(), want, ms);
}

template <class T>
bool run_scale(const kiln::Package& package, const char* name) {
  const int n = 100'003;
  const T factor = T(-1.5);
  const std::vector<T> x = ramp<T>(n, 4093, T(0.5));
  DeviceBuffer<T> dx(x);
  const double ms = run(package, name, blocks_for(n, 128), 128, dx.get(), factor, n);
  std::vector<T> want(x);
  for (T& v : want) v *= factor;
  return report(name, dx.download(), want, ms);
}

// One sum per block of BLOCK inputs, plus the package's __constant__ block_sum_bias.
template <class T, int BLOCK>
bool run_block_sum(const kiln::Package& package, const char* name, float bias) {
  const int blocks = 517;
  const int n = blocks * BLOCK - 5;  // the last block is partial
  const std::vector<T> in = ramp<T>(n, 17);
  DeviceBuffer<T> din(in), dout(std::vector<T>(blocks, T(0)));
  const double ms = run(package, name, blocks, BLOCK, static_cast<const T*>(din.get()), dout.get(), n);
  std::vector<T> want(blocks, static_cast<T>(bias));
  for (int i = 0; i < n; ++i) want[i / BLOCK] += in[i];
  return report(name, dout.download(), want, ms);
}

// Sets block_sum_bias in the current context: Kiln gives its address, cudaMemcpy writes it. Asking
// for the address loads the unit's image, so the block_sum launches after it load nothing.
void set_bias(const kiln::Package& package, float bias) {
  const auto start = std::chrono::steady_clock::now();
  const kiln::Global global = package.global("block_sum_bias");
  if (global.size != sizeof(float)) throw SetupError("block_sum_bias is " + std::to_string(global.size) + " bytes");
  void* address = reinterpret_cast<void*>(static_cast<std::uintptr_t>(global.device_pointer));
  check_cuda(cudaMemcpy(address, &bias, sizeof bias, cudaMemcpyHostToDevice), "cudaMemcpy to block_sum_bias");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("  %-24s set to %g                first use %.3f ms (lookup, load, copy)\n", "block_sum_bias", bias, ms);
}

// Makes device 0's primary context current (Kiln uses the current context) and describes it.
void open_device() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  // With no driver at all the CUDA runtime says "driver version is insufficient"; name both cases.
  if (error == cudaErrorInsufficientDriver || error == cudaErrorNoDevice)
    throw NoGpu(std::string("no GPU: no usable NVIDIA driver or device (CUDA runtime: ") + cudaGetErrorString(error) + ")");
  if (error != cudaSuccess) throw NoGpu(std::string("no GPU: ") + cudaGetErrorString(error));
  if (count == 0) throw NoGpu("no GPU: the driver reports no device");
  cudaDeviceProp properties{};
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  check_cuda(cudaFree(nullptr), "creating the primary context");
  check_cuda(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  int driver = 0;
  check_cuda(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  std::printf("saxpy: device 0 of %d: %s, compute capability %d.%d, driver %d.%d\n", count, properties.name,
              properties.major, properties.minor, driver / 1000, driver % 1000 / 10);
}

}  // namespace

int main(int argc, char** argv) {
  const bool if_gpu = argc > 1 && std::string(argv[1]) == "--if-gpu";
  const int first = if_gpu ? 2 : 1;
  // By name, the runtime looks in the program itself (EMBED), then for saxpy.kiln next to it (where
  // kiln_install_cache puts it), then in $KILN_PACKAGE_PATH.
  const std::string path = argc > first ? argv[first] : "";
  try {
    const kiln::Package package = path.empty() ? kiln::Package::open("saxpy") : kiln::Package::open_file(path);
    const unsigned version = kiln::version();
    std::printf("saxpy: package %s: %zu kernels, %zu targets (Kiln runtime %u.%u.%u)\n",
                path.empty() ? "saxpy (by name)" : path.c_str(),
                package.kernel_names().size(), package.targets().size(), version / 10000, version / 100 % 100,
                version % 100);
    open_device();
    bool ok = run_saxpy(package);
    ok = run_scale<float>(package, "scale<float>") && ok;
    ok = run_scale<double>(package, "scale<double>") && ok;
    const float bias = 0.5f;
    set_bias(package, bias);
    ok = run_block_sum<float, 256>(package, "block_sum<float, 256>", bias) && ok;
    ok = run_block_sum<double, 128>(package, "block_sum<double, 128>", bias) && ok;
    std::printf("saxpy: %s\n", ok ? "every result matches the CPU" : "FAILED: a result differs from the CPU");
    return ok ? 0 : 1;
  } catch (const NoGpu& error) {
    std::fprintf(stderr, "saxpy: %s\n", error.what());
    if (if_gpu) {
      std::fprintf(stderr, "saxpy: nothing to run here; on a machine with a GPU this runs every kernel above\n");
      return 0;
    }
  } catch (const SetupError& error) {
    std::fprintf(stderr, "saxpy: %s\n", error.what());
  } catch (const kiln::Error& error) {
    std::fprintf(stderr, "saxpy: %s (%s)\n", error.what(), kiln_status_string(error.status()));
  }
  return 2;
}
