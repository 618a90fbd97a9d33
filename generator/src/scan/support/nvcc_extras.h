// What nvcc gives every CUDA source (through its headers, or predefined) and clang 19's CUDA wrapper
// does not, as declarations and macros: the scanner only parses, so nothing here needs a body.
// Written from the signatures in CUDA 13's headers (named at each group); included after the
// wrapper on both sides of a CUDA parse.
#pragma clang system_header

// The C and C++ headers nvcc's implicit `-include cuda_runtime.h` reaches (crt/common_functions.h,
// crt/math_functions.h) and the wrapper does not: code uses clock(), CLOCKS_PER_SEC, printf, assert
// and ::isnan(int) (math.h's using-declarations) without including them.
#include <assert.h>
#include <math.h>
#include <new>
#include <stdio.h>
#include <time.h>

// Predefined by nvcc: __CUDACC__ as 1 (the wrapper defines it empty, so `#if __CUDACC__` fails), the
// compiler's version, which is the toolkit's, and __NVCC__. Code picks APIs by version
// (`#if __CUDACC_VER_MAJOR__ >= 13`) and its CUDA path by __NVCC__ (`#ifdef __NVCC__` ... `#else`
// HIP or CPU). The toolkit's headers test these only to detect nvcc's or NVRTC's front end and use
// their builtins: the two that do (CCCL's configuration, <nv/target>) are included first, so they
// keep seeing clang (CCCL needs C++17; below that, it cannot be used at all).
#if __cplusplus >= 201703L
#include <cuda/__cccl_config>
#endif
#include <nv/target>
#undef __CUDACC__
#define __CUDACC__ 1
#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)
#define __CUDACC_VER_MINOR__ (CUDA_VERSION % 1000 / 10)
#define __NVCC__ 1

// cooperative_groups/details/info.h offers cluster_group (this_cluster()) only to nvcc and NVRTC, or
// where this macro says the cluster intrinsics exist: clang 19 has them (crt/sm_90_rt.h).
#define _CG_CLUSTER_INTRINSICS_AVAILABLE 1

// sm_32_intrinsics.h: cache-hinted loads and stores. The wrapper skips that header (it defines __ldg
// with builtins instead) and clang 19 has no others. One overload per type CUDA 13 declares; the
// __half and __nv_bfloat16 ones come with cuda_fp16.h/cuda_bf16.h, which parse as they are.
#define __KILN_CACHE_HINTS(T)                                                                    \
  __device__ T __ldcg(const T*);                                                                 \
  __device__ T __ldca(const T*);                                                                 \
  __device__ T __ldcs(const T*);                                                                 \
  __device__ T __ldlu(const T*);                                                                 \
  __device__ T __ldcv(const T*);                                                                 \
  __device__ void __stwb(T*, T);                                                                 \
  __device__ void __stcg(T*, T);                                                                 \
  __device__ void __stcs(T*, T);                                                                 \
  __device__ void __stwt(T*, T);
__KILN_CACHE_HINTS(char)
__KILN_CACHE_HINTS(signed char)
__KILN_CACHE_HINTS(unsigned char)
__KILN_CACHE_HINTS(short)
__KILN_CACHE_HINTS(unsigned short)
__KILN_CACHE_HINTS(int)
__KILN_CACHE_HINTS(unsigned int)
__KILN_CACHE_HINTS(long)
__KILN_CACHE_HINTS(unsigned long)
__KILN_CACHE_HINTS(long long)
__KILN_CACHE_HINTS(unsigned long long)
__KILN_CACHE_HINTS(float)
__KILN_CACHE_HINTS(double)
__KILN_CACHE_HINTS(char2)
__KILN_CACHE_HINTS(char4)
__KILN_CACHE_HINTS(uchar2)
__KILN_CACHE_HINTS(uchar4)
__KILN_CACHE_HINTS(short2)
__KILN_CACHE_HINTS(short4)
__KILN_CACHE_HINTS(ushort2)
__KILN_CACHE_HINTS(ushort4)
__KILN_CACHE_HINTS(int2)
__KILN_CACHE_HINTS(int4)
__KILN_CACHE_HINTS(uint2)
__KILN_CACHE_HINTS(uint4)
__KILN_CACHE_HINTS(longlong2)
__KILN_CACHE_HINTS(ulonglong2)
__KILN_CACHE_HINTS(float2)
__KILN_CACHE_HINTS(float4)
__KILN_CACHE_HINTS(double2)
#undef __KILN_CACHE_HINTS

// surface_indirect_functions.h: the wrapper never includes it, and its bodies call
// __nv_tex_surf_handler operations clang does not implement. Both forms of each read (through an
// out-pointer, and returning T), the writes, all with the boundary mode defaulted as CUDA 13 does.
// The guard keeps the toolkit's own copy out when a source includes it.
#define __SURFACE_INDIRECT_FUNCTIONS_H__
#define __KILN_SURFACE(NAME, ...)                                                                \
  template <class T>                                                                             \
  __device__ void NAME##read(T*, cudaSurfaceObject_t, __VA_ARGS__,                               \
                             cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);                    \
  template <class T>                                                                             \
  __device__ T NAME##read(cudaSurfaceObject_t, __VA_ARGS__,                                      \
                          cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);                       \
  template <class T>                                                                             \
  __device__ void NAME##write(T, cudaSurfaceObject_t, __VA_ARGS__,                               \
                              cudaSurfaceBoundaryMode = cudaBoundaryModeTrap);
__KILN_SURFACE(surf1D, int x)
__KILN_SURFACE(surf2D, int x, int y)
__KILN_SURFACE(surf3D, int x, int y, int z)
__KILN_SURFACE(surf1DLayered, int x, int layer)
__KILN_SURFACE(surf2DLayered, int x, int y, int layer)
__KILN_SURFACE(surfCubemap, int x, int y, int face)
__KILN_SURFACE(surfCubemapLayered, int x, int y, int layer_face)
#undef __KILN_SURFACE

// crt/math_functions.h/.hpp: nvcc's min, max and friends are __host__ __device__; under the wrapper
// they are __device__ only, so host code such as main() cannot call them. Host overloads with the
// same parameter lists (clang keeps host and device overloads apart).
#define __KILN_HOST_MIN_MAX(R, A, B) __host__ R min(A, B); __host__ R max(A, B);
__KILN_HOST_MIN_MAX(int, int, int)
__KILN_HOST_MIN_MAX(unsigned int, unsigned int, unsigned int)
__KILN_HOST_MIN_MAX(unsigned int, int, unsigned int)
__KILN_HOST_MIN_MAX(unsigned int, unsigned int, int)
__KILN_HOST_MIN_MAX(long, long, long)
__KILN_HOST_MIN_MAX(unsigned long, unsigned long, unsigned long)
__KILN_HOST_MIN_MAX(unsigned long, long, unsigned long)
__KILN_HOST_MIN_MAX(unsigned long, unsigned long, long)
__KILN_HOST_MIN_MAX(long long, long long, long long)
__KILN_HOST_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
__KILN_HOST_MIN_MAX(unsigned long long, long long, unsigned long long)
__KILN_HOST_MIN_MAX(unsigned long long, unsigned long long, long long)
__KILN_HOST_MIN_MAX(float, float, float)
__KILN_HOST_MIN_MAX(double, double, double)
__KILN_HOST_MIN_MAX(double, float, double)
__KILN_HOST_MIN_MAX(double, double, float)
#undef __KILN_HOST_MIN_MAX
__host__ unsigned int umin(unsigned int, unsigned int);
__host__ unsigned int umax(unsigned int, unsigned int);
__host__ long long llmin(long long, long long);
__host__ long long llmax(long long, long long);
__host__ unsigned long long ullmin(unsigned long long, unsigned long long);
__host__ unsigned long long ullmax(unsigned long long, unsigned long long);

// crt/device_functions.h (which the wrapper replaces) names the memory orders and scopes of nvcc's
// built-in atomics (CUDA 12.8); the __nv_atomic_* functions themselves are nvcc builtins, declared
// here after the CUDA Programming Guide. The value operand takes the pointee's type, as nvcc
// converts it.
enum { __NV_ATOMIC_RELAXED, __NV_ATOMIC_CONSUME, __NV_ATOMIC_ACQUIRE, __NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQ_REL,
       __NV_ATOMIC_SEQ_CST };
enum { __NV_THREAD_SCOPE_THREAD, __NV_THREAD_SCOPE_BLOCK, __NV_THREAD_SCOPE_CLUSTER, __NV_THREAD_SCOPE_DEVICE,
       __NV_THREAD_SCOPE_SYSTEM };
template <class T> struct __kiln_same_type { typedef T type; };
#define __KILN_VALUE(T) typename __kiln_same_type<T>::type
#define __KILN_SCOPE int = __NV_THREAD_SCOPE_SYSTEM
#define __KILN_NV_ATOMIC_RMW(OP)                                                                 \
  template <class T> __device__ T __nv_atomic_fetch_##OP(T*, __KILN_VALUE(T), int, __KILN_SCOPE); \
  template <class T> __device__ void __nv_atomic_##OP(T*, __KILN_VALUE(T), int, __KILN_SCOPE);
__KILN_NV_ATOMIC_RMW(add)
__KILN_NV_ATOMIC_RMW(sub)
__KILN_NV_ATOMIC_RMW(min)
__KILN_NV_ATOMIC_RMW(max)
__KILN_NV_ATOMIC_RMW(and)
__KILN_NV_ATOMIC_RMW(or)
__KILN_NV_ATOMIC_RMW(xor)
#undef __KILN_NV_ATOMIC_RMW
template <class T> __device__ void __nv_atomic_load(T*, T*, int, __KILN_SCOPE);
template <class T> __device__ T __nv_atomic_load_n(T*, int, __KILN_SCOPE);
template <class T> __device__ void __nv_atomic_store(T*, T*, int, __KILN_SCOPE);
template <class T> __device__ void __nv_atomic_store_n(T*, __KILN_VALUE(T), int, __KILN_SCOPE);
template <class T> __device__ void __nv_atomic_exchange(T*, T*, T*, int, __KILN_SCOPE);
template <class T> __device__ T __nv_atomic_exchange_n(T*, __KILN_VALUE(T), int, __KILN_SCOPE);
template <class T> __device__ bool __nv_atomic_compare_exchange(T*, T*, T*, bool, int, int, __KILN_SCOPE);
template <class T>
__device__ bool __nv_atomic_compare_exchange_n(T*, T*, __KILN_VALUE(T), bool, int, int, __KILN_SCOPE);
__device__ void __nv_atomic_thread_fence(int, __KILN_SCOPE);
#undef __KILN_VALUE
#undef __KILN_SCOPE
