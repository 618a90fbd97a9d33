// Included first when a source's options hold -default-device (NVRTC's
// --device-as-default-execution-space): every function declared after this pragma is __host__
// __device__, so device code may call the unannotated ones, as NVRTC lets it.
//
// The C++ standard library's headers are parsed before it, keeping their own execution spaces (those
// Kiln's JIT-safe headers stand for under NVRTC, compile/jit_safe/, and <exception> and <new>): after
// the pragma, a libstdc++ header would declare a function __host__ __device__ over the __host__ one a
// header of the CUDA wrapper declared (std::terminate, std::pair's constructors), an error. clang lets
// device code call their constexpr functions (std::numeric_limits), and its wrapper gives <cmath>'s
// functions device overloads. Only for the wrapper's parse: the prelude parse is of sources that
// include no standard header.
#ifdef __CLANG_CUDA_RUNTIME_WRAPPER_H__
#include <array>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <new>
#include <numeric>
#include <optional>
#include <ratio>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#endif
#pragma clang force_cuda_host_device begin
