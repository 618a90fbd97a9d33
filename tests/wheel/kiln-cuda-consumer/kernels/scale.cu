// data *= factor. A template, so that the build needs the scanner to find it and name its
// instantiation, scale<float>; a toolkit header, so that the scan parses with clang's CUDA wrapper
// from its resource directory (not the fast prelude parse, which needs no header of clang's).
#include <cuda/std/cstdint>

template <typename T>
__global__ void scale(T* data, T factor, cuda::std::int32_t n) {
  const cuda::std::int32_t i = static_cast<cuda::std::int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) data[i] *= factor;
}
