// One partial sum per block with CUB's BlockReduce, plus a bias the host sets through the package
// (kiln.toml keeps the variable through trimming).
#include <cub/block/block_reduce.cuh>

__constant__ float block_sum_bias;

template <typename T, int BLOCK>
__global__ void block_sum(const T* in, T* out, int n) {
  using Reduce = cub::BlockReduce<T, BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  const int i = static_cast<int>(blockIdx.x * BLOCK + threadIdx.x);
  const T value = i < n ? in[i] : T(0);
  const T sum = Reduce(storage).Sum(value);
  if (threadIdx.x == 0) out[blockIdx.x] = sum + static_cast<T>(block_sum_bias);
}
