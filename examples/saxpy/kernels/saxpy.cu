// Device-only source for NVRTC: no includes needed (NVRTC predefines __global__, threadIdx, ...).
#include "common.cuh"

// y = a * x + y, callable from C by its plain name.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  const int i = kiln_example::global_index();
  if (i < n) y[i] = a * x[i] + y[i];
}

// x *= factor, for any arithmetic type; the package holds the instantiations kiln.toml lists.
template <typename T>
__global__ void scale(T* x, T factor, int n) {
  const int i = kiln_example::global_index();
  if (i < n) x[i] *= factor;
}
