#include "gpu_support.hpp"

#include <cstdlib>
#include <filesystem>

namespace kiln::gpu_test {

namespace {

// Written by tests/gpu/CMakeLists.txt; empty in runtime-only builds, which build no packages.
std::string built_package(const std::string& file) {
  if (file == "saxpy.kiln") return KILN_GPU_TEST_SAXPY_PACKAGE;
  if (file == "gpu.kiln") return KILN_GPU_TEST_FIXTURE_PACKAGE;
  if (file == "scan.kiln") return KILN_GPU_TEST_SCAN_PACKAGE;
  if (file == "scan_fixtures.kiln") return KILN_GPU_TEST_SCAN_FIXTURES_PACKAGE;
  if (file == "arch.kiln") return KILN_GPU_TEST_ARCH_PACKAGE;
  if (file == "linking.kiln") return KILN_GPU_TEST_LINKING_PACKAGE;
  if (file == "carried.kiln") return KILN_GPU_TEST_CARRIED_PACKAGE;
  if (file == "std_headers.kiln") return KILN_GPU_TEST_STD_HEADERS_PACKAGE;
  // arch.kiln split by kiln split beside it (tests/gpu/CMakeLists.txt).
  if (file == "arch_split.kiln" && *KILN_GPU_TEST_ARCH_PACKAGE)
    return (std::filesystem::path(KILN_GPU_TEST_ARCH_PACKAGE).parent_path() / file).string();
  return {};
}

}  // namespace

std::string package_path(const std::string& file) {
  const char* directory = std::getenv("KILN_GPU_TEST_PACKAGES");
  const std::string path = directory && *directory ? (std::filesystem::path(directory) / file).string()
                                                   : built_package(file);
  if (path.empty()) {
    throw std::runtime_error("no path for the test package " + file +
                             ": set KILN_GPU_TEST_PACKAGES to the directory that holds it");
  }
  return path;
}

kiln::Package open_package(const std::string& file) { return kiln::Package::open_file(package_path(file)); }

int device_arch() {
  int major = 0, minor = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), "compute capability");
  check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), "compute capability");
  return major * 10 + minor;
}

}  // namespace kiln::gpu_test
