// Compiling at run time on the GPU (issue 14), with the machine's NVRTC and nvJitLink: kernels of
// tests/fixtures/projects/carried (built for sm_80 only) compiled for this GPU from the sources the
// package carries, an instantiation the package lacks, a program from a string; each computes the
// right values. gpu_main.cpp points the cache at a directory of this process's own.
#include "gpu_support.hpp"

#include "kiln/program.hpp"

#include <gtest/gtest.h>

namespace kiln::gpu_test {
namespace {

int device_arch() {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  return properties.major * 10 + properties.minor;
}

TEST(RuntimeCompile, AnInstantiationThePackageLacksIsCompiledAndComputes) {
  kiln::Package package = open_package("carried.kiln");
  const int n = 1000;
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = i;
  DeviceBuffer<double> buffer(x);
  // Not in the package (it holds ops::scale<float>); unqualified, as a user may write it.
  kiln::Kernel scale = package.kernel("scale<double>");
  scale.launch((n + 255) / 256, 256, 0, nullptr, buffer.get(), 0.5, n);
  synchronize();
  const std::vector<double> got = buffer.download();
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], i * 0.5 * 3) << "element " << i << " (FACTOR=3 from the build)";
}

TEST(RuntimeCompile, AKernelWithNoImageForThisGpuIsCompiledForIt) {
  kiln::Package package = open_package("carried.kiln");
  const std::uint32_t arch = static_cast<std::uint32_t>(device_arch());
  if (arch / 10 == 8) GTEST_SKIP() << "the package's sm_80 cubin runs on this GPU";
  EXPECT_EQ(package.coverage("ops::shift<int>", arch), KILN_COVERAGE_RUNTIME_COMPILE);
  EXPECT_EQ(package.coverage("secret", arch), KILN_COVERAGE_NONE);
  const int n = 300;
  DeviceBuffer<int> buffer(std::vector<int>(n, 5));
  package.kernel("ops::shift<int>").launch(2, 256, 0, nullptr, buffer.get(), 7, n);
  synchronize();
  for (int v : buffer.download()) ASSERT_EQ(v, 12);
  // A kernel of a source that is not carried has no way to run here.
  kiln_kernel* k = nullptr;
  EXPECT_EQ(kiln_package_get_kernel(package.get(), "secret", &k), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
}

TEST(RuntimeCompile, AProgramFromAStringComputesAndIsCompiledOnce) {
  kiln::Program program;
  program.name = "axpb.cu";
  program.source = "#include \"coef.h\"\n__device__ float bias;\n"
                   "template <int K> __global__ void axpb(float* x, int n) {\n"
                   "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  if (i < n) x[i] = x[i] * (K * k_coef) + bias;\n}\n";
  program.headers = {{"coef.h", "#pragma once\nconstexpr float k_coef = 2.0f;\n"}};
  program.kernels = {"axpb<3>"};
  program.globals = {"bias"};
  const kiln_cache_stats before = kiln::cache_stats();
  kiln::Package compiled = program.compile();
  const float bias = 1.0f;
  const kiln::Global global = compiled.global("bias");
  check_cuda(cudaMemcpy(reinterpret_cast<void*>(global.device_pointer), &bias, sizeof bias, cudaMemcpyHostToDevice),
             "write bias");
  const int n = 512;
  DeviceBuffer<float> buffer(std::vector<float>(n, 1.0f));
  compiled.kernel("axpb<3>").launch(2, 256, 0, nullptr, buffer.get(), n);
  synchronize();
  for (float v : buffer.download()) ASSERT_EQ(v, 7.0f);
  kiln::Package again = program.compile();   // this process's memory
  const kiln_cache_stats after = kiln::cache_stats();
  EXPECT_EQ(after.compiles + after.cache_hits - before.compiles - before.cache_hits, 1u);
  EXPECT_GE(after.memory_hits, before.memory_hits + 1);
}

}  // namespace
}  // namespace kiln::gpu_test
