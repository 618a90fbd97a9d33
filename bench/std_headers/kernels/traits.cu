// <type_traits>, <limits> and <cstdint> in a kernel template.
#include <cstdint>
#include <limits>
#include <type_traits>

template <typename T>
__global__ void saturate(T* x, std::int32_t n) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (std::is_floating_point_v<T>) x[i] = x[i] > T(1) ? T(1) : x[i];
  else x[i] = x[i] >> (std::numeric_limits<T>::digits - 1);   // a constant nvcc allows in device code
}
template __global__ void saturate<float>(float*, std::int32_t);
template __global__ void saturate<int>(int*, std::int32_t);
