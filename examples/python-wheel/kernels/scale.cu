// data *= factor, N consecutive elements per thread. Nothing here instantiates the template: the
// instantiation the wheel holds, scale<float, 4>, is the one the package's Python code asks for
// (src/kiln_example/ops.py), which the generator finds when it scans that file at build time.
template <typename T, int N>
__global__ void scale(T* data, T factor, int n) {
  const int first = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * N;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (first + k < n) data[first + k] *= factor;
  }
}
