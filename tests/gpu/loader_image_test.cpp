// kiln_package_select_image on a real device: the image it hands out loads with the driver's own
// loaders (cuModuleLoadData, cuLibraryLoadData), its lowered name resolves there, and it is the image
// kiln_package_get_kernel runs (the kernel reports __CUDA_ARCH__). The ctest test
// gpu_tests_forced_ptx runs these too, with KILN_FORCE_TARGET=ptx: the image is then PTX, which the
// driver must accept exactly as handed out (NUL-terminated).
#include "gpu_support.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace kiln::gpu_test {
namespace {

// Driver entry points through the CUDA runtime: linking libcuda would keep the binary from starting
// (instead of skipping) on a machine without a driver.
template <class F>
F entry_point(const char* symbol) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check_cuda(cudaGetDriverEntryPointByVersion(symbol, &function, 12000, cudaEnableDefault, &found),
             std::string("cudaGetDriverEntryPointByVersion(") + symbol + ")");
  if (found != cudaDriverEntryPointSuccess || !function) {
    throw std::runtime_error(std::string("no driver entry point ") + symbol);
  }
  return reinterpret_cast<F>(function);
}

struct Driver {
  PFN_cuModuleLoadData_v2000 module_load_data = entry_point<PFN_cuModuleLoadData_v2000>("cuModuleLoadData");
  PFN_cuModuleGetFunction_v2000 module_get_function =
      entry_point<PFN_cuModuleGetFunction_v2000>("cuModuleGetFunction");
  PFN_cuModuleUnload_v2000 module_unload = entry_point<PFN_cuModuleUnload_v2000>("cuModuleUnload");
  PFN_cuLaunchKernel_v4000 launch_kernel = entry_point<PFN_cuLaunchKernel_v4000>("cuLaunchKernel");
  PFN_cuLibraryLoadData_v12000 library_load_data = entry_point<PFN_cuLibraryLoadData_v12000>("cuLibraryLoadData");
  PFN_cuLibraryGetKernel_v12000 library_get_kernel = entry_point<PFN_cuLibraryGetKernel_v12000>("cuLibraryGetKernel");
  PFN_cuLibraryUnload_v12000 library_unload = entry_point<PFN_cuLibraryUnload_v12000>("cuLibraryUnload");
};

#define EXPECT_CU(call) EXPECT_EQ((call), CUDA_SUCCESS) << #call
#define ASSERT_CU(call) ASSERT_EQ((call), CUDA_SUCCESS) << #call

// "sm_90a" -> 90, "compute_75" -> 75.
int target_arch(std::string_view target) { return std::atoi(std::string(target.substr(target.find('_') + 1)).c_str()); }

int arch_that_ran(const kiln::Package& package) {
  DeviceBuffer<int> out(1);
  package.kernel("cuda_arch").launch(1, 1, 0, nullptr, out.get());
  synchronize();
  return out.download()[0];
}

TEST(LoaderImage, TheSelectedImageLoadsWithTheDriversLoadersAndIsTheOneKilnRuns) {
  const Driver driver;
  kiln::Package package = open_package("gpu.kiln");
  const kiln::Image image = package.image("cuda_arch");
  EXPECT_EQ(image.compute_capability, static_cast<std::uint32_t>(device_arch()));
  EXPECT_EQ(image.kernel_name, "cuda_arch");
  EXPECT_EQ(image.lowered_name, "cuda_arch");  // extern "C"
  if (image.kind == kiln::Image::Kind::ptx) {
    EXPECT_EQ(image.data[image.size - 1], std::byte{0});
  }
  std::printf("gpu_tests: handed out %s, %zu bytes\n", std::string(image.description).c_str(), image.size);

  CUmodule module = nullptr;
  ASSERT_CU(driver.module_load_data(&module, image.data));
  CUfunction function = nullptr;
  ASSERT_CU(driver.module_get_function(&function, module, image.lowered_name.data()));
  DeviceBuffer<int> out(1);
  int* pointer = out.get();
  void* args[] = {&pointer};
  ASSERT_CU(driver.launch_kernel(function, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
  synchronize();
  const int ran = out.download()[0];
  EXPECT_EQ(ran, target_arch(image.target) * 10) << image.description;
  EXPECT_EQ(arch_that_ran(package), ran) << "kiln_package_get_kernel ran another image than " << image.description;
  EXPECT_CU(driver.module_unload(module));

  CUlibrary library = nullptr;
  ASSERT_CU(driver.library_load_data(&library, image.data, nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel = nullptr;
  EXPECT_CU(driver.library_get_kernel(&kernel, library, image.lowered_name.data()));
  EXPECT_CU(driver.library_unload(library));
}

// A template's lowered (mangled) name resolves in the image, and the kernel computes the right thing.
TEST(LoaderImage, AMangledNameResolvesAndItsKernelComputes) {
  const Driver driver;
  kiln::Package package = open_package("saxpy.kiln");
  const kiln::Image image = package.image("scale<float>");
  EXPECT_EQ(image.lowered_name.substr(0, 2), "_Z");
  CUmodule module = nullptr;
  ASSERT_CU(driver.module_load_data(&module, image.data));
  CUfunction function = nullptr;
  ASSERT_CU(driver.module_get_function(&function, module, image.lowered_name.data()));
  int n = 10'007;
  float factor = -1.5f;
  const std::vector<float> x = ramp<float>(static_cast<std::size_t>(n), 4093, 0.5f);
  DeviceBuffer<float> data(x);
  float* pointer = data.get();
  void* args[] = {&pointer, &factor, &n};
  ASSERT_CU(driver.launch_kernel(function, blocks_for(static_cast<std::size_t>(n), 128), 1, 1, 128, 1, 1, 0, nullptr,
                                 args, nullptr));
  synchronize();
  std::vector<float> want(x);
  for (float& v : want) v *= factor;
  EXPECT_EQ(data.download(), want);
  EXPECT_CU(driver.module_unload(module));
}

// The driver-free form, given this device's compute capability and driver version, chooses the same.
TEST(LoaderImage, TheArchitectureFormAgreesWithTheDevice) {
  int integrated = 0, driver_version = 0;
  check_cuda(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0), "cudaDevAttrIntegrated");
  check_cuda(cudaDriverGetVersion(&driver_version), "cudaDriverGetVersion");
  if (integrated) GTEST_SKIP() << "the architecture form assumes a discrete GPU (kiln.h)";
  kiln::Package package = open_package("gpu.kiln");
  const kiln::Image on_device = package.image("cuda_arch", 0);
  const kiln::Image for_arch =
      package.image_for_arch("cuda_arch", static_cast<std::uint32_t>(device_arch()), driver_version);
  EXPECT_EQ(for_arch.target, on_device.target);
  EXPECT_EQ(for_arch.data, on_device.data);
}

TEST(LoaderImage, AnOrdinalTheDriverDoesNotHaveIsAnInvalidArgument) {
  int count = 0;
  check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  kiln::Package package = open_package("gpu.kiln");
  try {
    package.image("cuda_arch", count);
    FAIL() << "device " << count << " was accepted";
  } catch (const kiln::Error& e) {
    EXPECT_EQ(e.status(), KILN_STATUS_INVALID_ARGUMENT) << e.what();
    EXPECT_NE(std::string(e.what()).find("there is no CUDA device " + std::to_string(count)), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::gpu_test
