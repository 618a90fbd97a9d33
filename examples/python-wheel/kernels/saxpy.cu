// y = a * x + y. Device code only and no includes, so that NVRTC (Kiln's generator at build time, or
// CuPy's RawModule, which the benchmark compares against) compiles this file as it is.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = a * x[i] + y[i];
}
