// What NVRTC predefines and include-free sources rely on, for a parse without clang's CUDA wrapper
// (-nocudainc): the execution-space macros, the builtin variables (threadIdx, blockIdx, ...) and
// assert (NVRTC defines it, with no header). Anything else NVRTC provides (__syncthreads, atomicAdd,
// math functions) makes this parse fail, and the scanner falls back to the full wrapper.
#pragma clang system_header
#define __CUDACC__ 1
#define __CUDACC_RTC__ 1
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __constant__ __attribute__((constant))
#define __shared__ __attribute__((shared))
#define __managed__ __attribute__((device, annotate("kiln.managed")))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __grid_constant__
#include <__clang_cuda_builtin_vars.h>
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#else
extern "C" __host__ __device__ void __assertfail(const char* assertion, const char* file, unsigned int line,
                                                 const char* function, __SIZE_TYPE__ char_size);
#define assert(e) ((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
