// The kernels the benchmark launches, their arguments, and a check that they ran.
#include "cases.hpp"
#include "driver_check.hpp"

#include <cuda.h>
#include <malloc.h>

#include <fstream>
#include <iterator>
#include <vector>

namespace kiln::bench {

namespace {

const KernelSpec k_kernels[] = {
    {"saxpy", "saxpy.cu", false, 256},                  // trivial: one multiply-add per thread
    {"block_sum<float, 256>", "block_sum.cu", true, 256},  // a CUB block reduction
    // Not in saxpy.kiln or saxpy_carried.kiln: compiled at run time from the carried sources (e, f).
    {"block_sum<float, 512>", "block_sum.cu", true, 512},
};

bool is_saxpy(const KernelSpec& spec) { return std::string(spec.name) == "saxpy"; }

}  // namespace

void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(result, &name);
  throw BenchError(std::string(what) + ": " + (name ? name : std::to_string(result)));
}

const KernelSpec& find_kernel_spec(const std::string& name) {
  for (const KernelSpec& spec : k_kernels) {
    if (name == spec.name) return spec;
  }
  throw BenchError("unknown kernel '" + name + "' (known: saxpy, block_sum<float, 256>, block_sum<float, 512>)");
}

void settle_heap() { malloc_trim(0); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BenchError("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void synchronize() { check(cuCtxSynchronize(), "cuCtxSynchronize"); }

// saxpy(float a, const float* x, float* y, int n): x = 1, y = 2, so y becomes 4.
// block_sum<float, 256>(const float* in, float* out, int n): in = 1, so each block writes 256 (plus a
// bias of 0 in a freshly loaded image).
Launch::Launch(const KernelSpec& spec) : m_spec(spec), m_block(spec.block) {
  const std::size_t bytes = static_cast<std::size_t>(m_n) * sizeof(float);
  m_grid = static_cast<unsigned>(m_n) / m_block;
  const std::vector<float> ones(static_cast<std::size_t>(m_n), 1.0f), twos(static_cast<std::size_t>(m_n), 2.0f);
  CUdeviceptr in = 0, out = 0;
  bench::check(cuMemAlloc(&in, bytes), "cuMemAlloc");
  bench::check(cuMemAlloc(&out, bytes), "cuMemAlloc");
  m_in = in;
  m_out = out;
  bench::check(cuMemcpyHtoD(in, ones.data(), bytes), "cuMemcpyHtoD");
  bench::check(cuMemcpyHtoD(out, twos.data(), bytes), "cuMemcpyHtoD");
  if (is_saxpy(spec)) {
    m_args[0] = &m_a;
    m_args[1] = &m_in;
    m_args[2] = &m_out;
    m_args[3] = &m_n;
    m_arg_count = 4;
  } else {
    m_args[0] = &m_in;
    m_args[1] = &m_out;
    m_args[2] = &m_n;
    m_arg_count = 3;
  }
}

Launch::~Launch() {
  cuMemFree(static_cast<CUdeviceptr>(m_in));
  cuMemFree(static_cast<CUdeviceptr>(m_out));
}

bool Launch::check() const {
  std::vector<float> out(m_grid);
  bench::check(cuMemcpyDtoH(out.data(), static_cast<CUdeviceptr>(m_out), out.size() * sizeof(float)), "cuMemcpyDtoH");
  const float want = is_saxpy(m_spec) ? m_a * 1.0f + 2.0f : static_cast<float>(m_block);
  for (float v : out) {
    if (v != want) return false;
  }
  return true;
}

}  // namespace kiln::bench
