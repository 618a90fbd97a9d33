// Device helpers for the kernels: an include directory of the cache (INCLUDE_DIRECTORIES include).
// Changing this file rebuilds the package: the generator lists every header it read in its depfile.
#pragma once

namespace vector_math {

template <class T>
__device__ T lerp(T a, T b, T t) {
  return a + t * (b - a);
}

__device__ inline int global_index() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

}  // namespace vector_math
