// What nvcc's headers give every CUDA source and clang 19's CUDA wrapper does not, as declarations:
// the scanner only parses, so nothing here needs a body. Written from the signatures in CUDA 13's
// headers (named at each group); included after the wrapper on both sides of a CUDA parse.
#pragma clang system_header

// The C and C++ headers nvcc's implicit `-include cuda_runtime.h` reaches (crt/common_functions.h,
// crt/math_functions.h) and the wrapper does not: code uses clock(), CLOCKS_PER_SEC, printf, assert
// and ::isnan(int) (math.h's using-declarations) without including them.
#include <assert.h>
#include <math.h>
#include <new>
#include <stdio.h>
#include <time.h>

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
