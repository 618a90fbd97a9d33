// One partial sum per block with CUB's BlockReduce: block b writes the sum of in[b*BLOCK, b*BLOCK+BLOCK)
// to out[b], counting elements at or beyond n as 0. Launch with BLOCK threads per block. CUB comes from
// the CUDA toolkit's headers at build time (CuPy's RawModule finds its own bundled copy). The
// instantiation, block_sum<float, 256>, is requested from the package's Python code only.
#include <cub/block/block_reduce.cuh>

template <typename T, int BLOCK>
__global__ void block_sum(const T* in, T* out, int n) {
  using Reduce = cub::BlockReduce<T, BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  const int i = static_cast<int>(blockIdx.x * BLOCK + threadIdx.x);
  const T value = i < n ? in[i] : T(0);
  const T sum = Reduce(storage).Sum(value);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
