// The embedded example's kernels. Device code only: the generator compiles it with NVRTC.
#include "vector_math.cuh"

// A table the host can find by name (Package::global) and fill_ramp writes.
__device__ int ramp[RAMP_SIZE];

// ramp[i] = i * step.
extern "C" __global__ void fill_ramp(int step) {
  const int i = vector_math::global_index();
  if (i < RAMP_SIZE) ramp[i] = i * step;
}

// out[i] = a[i] + t * (b[i] - a[i]); the package holds the instantiations CMakeLists.txt lists.
template <class T>
__global__ void lerp_arrays(const T* a, const T* b, T t, T* out, int n) {
  const int i = vector_math::global_index();
  if (i < n) out[i] = vector_math::lerp(a[i], b[i], t);
}
