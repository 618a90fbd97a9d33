// A kernel for consumer_arguments: one header from each kind of include directory.
#include "local.cuh"      // INCLUDE_DIRECTORIES include (relative)
#include "absolute.cuh"   // INCLUDE_DIRECTORIES ${CMAKE_CURRENT_SOURCE_DIR}/include2 (absolute)
#include <cuda/std/cstdint>  // the toolkit: <cuda>/include/cccl

extern "C" __global__ void store(cuda::std::int32_t* out) { *out = LOCAL_VALUE + ABSOLUTE_VALUE; }
