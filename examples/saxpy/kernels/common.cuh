#pragma once

namespace kiln_example {

__device__ inline int global_index() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

}  // namespace kiln_example
