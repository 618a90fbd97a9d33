// The GPU tests' main: without a usable GPU, says why and exits 125 before any test runs, so that
// CTest (SKIP_RETURN_CODE 125) reports the whole binary as skipped, never as passed.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

constexpr int k_exit_skipped = 125;

// Makes device 0's primary context current on the main thread, as a CUDA runtime program would
// have it when it first calls Kiln. Returns false (having said why) when there is no GPU.
bool open_device() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  // Only "no driver" and "no device" mean skipped; any other error is a failure and throws.
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver || (error == cudaSuccess && count == 0)) {
    std::printf("no GPU: %s\n", error != cudaSuccess ? cudaGetErrorString(error) : "the driver reports no device");
    return false;
  }
  kiln::gpu_test::check_cuda(error, "cudaGetDeviceCount");
  kiln::gpu_test::check_cuda(cudaSetDevice(0), "cudaSetDevice(0)");
  kiln::gpu_test::check_cuda(cudaFree(nullptr), "creating device 0's primary context");
  cudaDeviceProp properties{};
  kiln::gpu_test::check_cuda(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  const char* forced = std::getenv("KILN_FORCE_TARGET");
  std::printf("gpu_tests: device 0 of %d: %s, compute capability %d.%d%s%s\n", count, properties.name,
              properties.major, properties.minor, forced ? ", KILN_FORCE_TARGET=" : "", forced ? forced : "");
  return true;
}

// Both packages must be there: without them every test would fail with the same message.
bool find_packages() {
  for (const char* file : {"saxpy.kiln", "gpu.kiln"}) {
    try {
      const std::string path = kiln::gpu_test::package_path(file);
      if (!std::filesystem::is_regular_file(path)) {
        std::printf("gpu_tests: the test package %s is missing (build the targets saxpy_package and "
                    "gpu_test_package, or set KILN_GPU_TEST_PACKAGES)\n", path.c_str());
        return false;
      }
      std::printf("gpu_tests: package %s\n", path.c_str());
    } catch (const std::exception& error) {
      std::printf("gpu_tests: %s\n", error.what());
      return false;
    }
  }
  return true;
}

}  // namespace

// Kernels compiled at run time go to a cache of this run's own (unless KILN_CACHE_DIR says where),
// and NVRTC is looked for in the toolkit's usual place too (a CUDA_PATH set by the caller wins).
struct RunTimeCompileSettings {
  RunTimeCompileSettings() {
    if (!std::getenv("KILN_CACHE_DIR")) {
      directory = std::filesystem::temp_directory_path() / ("kiln-gpu-tests-" + std::to_string(::getpid()));
      ::setenv("KILN_CACHE_DIR", directory.c_str(), 1);
    }
    ::setenv("CUDA_PATH", "/usr/local/cuda", 0);
  }
  ~RunTimeCompileSettings() {
    std::error_code ignored;
    if (!directory.empty()) std::filesystem::remove_all(directory, ignored);
  }
  std::filesystem::path directory;
};

int main(int argc, char** argv) {
  const RunTimeCompileSettings run_time_compile;
  testing::InitGoogleTest(&argc, argv);
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();  // listing needs no GPU
  try {
    if (!open_device()) return k_exit_skipped;
    if (!find_packages()) return 1;
  } catch (const std::exception& error) {
    std::printf("gpu_tests: a GPU is present but cannot be used: %s\n", error.what());
    return 1;
  }
  return RUN_ALL_TESTS();
}
