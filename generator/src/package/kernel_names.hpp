// The generator's canonical spelling of a kernel: its lowered (mangled) name demangled, without the
// return type and parameter list: "_Z9block_sumIfLi256EEvPKT_PS0_i" -> "block_sum<float, 256>".
#pragma once

#include <string>
#include <string_view>

namespace kiln::package {

// extern "C" names and names that do not demangle come back unchanged.
std::string canonical_kernel_name(std::string_view lowered);

// Whether `lowered` names a function template specialization. Itanium mangling encodes a return
// type for those alone, so their demangled signature starts with "void ". NVRTC marks them weak;
// nvcc's whole-program cubins do not, so this is how nvcc-compiled units recognize them.
bool is_template_instance(std::string_view lowered);

// The name an image's variable is recorded by where no scan named it (a unit left to nvcc's image):
// its symbol demangled ("_ZN2ns5tableE" -> "ns::table", "table" as it is). "" for the compiler's own
// (printf's "$str", "__nv_...", module-local "_INTERNAL_..." names) and the toolkit's (cub::,
// thrust::, cuda::, cooperative_groups::, nv::), which no program asks for by name.
std::string image_variable_name(std::string_view lowered);

// An internal symbol of libcudadevrt.a, which a link group that needs the CUDA device runtime links:
// nvJitLink names them after the library's source file,
// "__nv_static_52__f4510a67_22_cuda_device_runtime_cu_3ecce0c0_..._Z16memcpy_3d_device...".
// Its kernels are not the user's.
bool is_device_runtime_symbol(std::string_view symbol);

// Strips the trailing "(...)" parameter list and a leading "void " return type from a demangled
// function signature.
std::string strip_signature(std::string_view demangled);

}  // namespace kiln::package
