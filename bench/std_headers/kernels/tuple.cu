// <tuple> and <utility> in device code.
#include <tuple>
#include <utility>

__device__ std::tuple<float, int> split(float v) { return {v - static_cast<int>(v), static_cast<int>(v)}; }

extern "C" __global__ void fractions(float* x, int* whole, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto parts = split(x[i]);
  std::pair<float, int> p{std::get<0>(parts), std::get<1>(parts)};
  int w = p.second;
  x[i] = std::move(p.first);
  whole[i] = std::move(w);
}
