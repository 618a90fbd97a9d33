// The standalone CUB kernel of the size benchmark: one BlockReduce kernel, instantiated once as
// block_reduce<float, 256> (by the benchmark's kiln.toml for Kiln, by a wrapper .cu for nvcc).
// Device-only source: NVRTC predefines __global__, blockIdx, ...; nvcc includes them implicitly.
#include <cub/block/block_reduce.cuh>

template <typename T, int BLOCK>
__global__ void block_reduce(const T* in, T* out, int n) {
  using Reduce = cub::BlockReduce<T, BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  const int i = static_cast<int>(blockIdx.x * BLOCK + threadIdx.x);
  const T value = i < n ? in[i] : T(0);
  const T sum = Reduce(storage).Sum(value);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
