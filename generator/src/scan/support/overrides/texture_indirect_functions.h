// Found before the toolkit's header of the same name (through -iquote: the wrapper includes it with
// quotes), and includes it. CUDA 13's sparse tex2Dgather (`bool* isResident` forms) passes its
// operands as (x, y, comp, &resident); clang 19's __clang_cuda_texture_intrinsics.h implements that
// operation with (x, y, &resident, comp), so its instantiation fails. The toolkit's header calls
// ::__cuda_tex::__tex_fetch by qualified name, so an overload declared before it, for that operation
// only, takes the call. A declaration is enough: the scanner never generates code.
#pragma clang system_header
namespace {
namespace __cuda_tex {
template <bool, class = void> struct __kiln_enable_if {};
template <class __T> struct __kiln_enable_if<true, __T> { using type = __T; };
template <class __op, class __T,
          class = typename __kiln_enable_if<__is_same(__op, __Tag<__tex_op_hash("__itex2Dgather_sparse")>)>::type>
__device__ void __tex_fetch(__T*, cudaTextureObject_t, float, float, int, unsigned char*);
}  // namespace __cuda_tex
}  // namespace
#include_next <texture_indirect_functions.h>
