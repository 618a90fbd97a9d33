// The NVRTC and nvJitLink entry points Kiln uses, declared here (no CUDA headers: the runtime builds
// without the toolkit) and bound with dlsym (compiler_loader.hpp): one table for the generator's
// compiles (kiln build) and the run-time ones alike. The signatures and enum values are those of
// nvrtc.h and nvJitLink.h in CUDA 12 and 13 (tests/generator/nvrtc_library_test.cpp checks the values
// against the headers); nvJitLink's are its unversioned exports, which CUDA 13's header reaches through
// its __nvJitLink*_13_0 names (the same code: each is a jump to one implementation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::jit {

using nvrtcResult = int;             // NVRTC_SUCCESS is 0
using nvrtcProgram = struct _nvrtcProgram*;
using nvJitLinkResult = int;         // NVJITLINK_SUCCESS is 0
using nvJitLinkHandle = struct nvJitLink*;
inline constexpr int k_nvjitlink_input_ltoir = 3;     // NVJITLINK_INPUT_LTOIR
inline constexpr int k_nvjitlink_input_fatbin = 4;    // NVJITLINK_INPUT_FATBIN
inline constexpr int k_nvjitlink_input_library = 6;   // NVJITLINK_INPUT_LIBRARY

struct NvrtcApi {
  nvrtcResult (*version)(int* major, int* minor) = nullptr;
  const char* (*error_string)(nvrtcResult result) = nullptr;
  nvrtcResult (*create_program)(nvrtcProgram* program, const char* source, const char* name, int header_count,
                                const char* const* headers, const char* const* include_names) = nullptr;
  nvrtcResult (*destroy_program)(nvrtcProgram* program) = nullptr;
  nvrtcResult (*add_name_expression)(nvrtcProgram program, const char* expression) = nullptr;
  nvrtcResult (*compile_program)(nvrtcProgram program, int option_count, const char* const* options) = nullptr;
  nvrtcResult (*get_program_log_size)(nvrtcProgram program, std::size_t* size) = nullptr;
  nvrtcResult (*get_program_log)(nvrtcProgram program, char* log) = nullptr;
  nvrtcResult (*get_lowered_name)(nvrtcProgram program, const char* expression, const char** lowered) = nullptr;
  nvrtcResult (*get_ltoir_size)(nvrtcProgram program, std::size_t* size) = nullptr;
  nvrtcResult (*get_ltoir)(nvrtcProgram program, char* ltoir) = nullptr;
  nvrtcResult (*get_ptx_size)(nvrtcProgram program, std::size_t* size) = nullptr;
  nvrtcResult (*get_ptx)(nvrtcProgram program, char* ptx) = nullptr;
  nvrtcResult (*get_num_supported_archs)(int* count) = nullptr;
  nvrtcResult (*get_supported_archs)(int* archs) = nullptr;
};

struct NvJitLinkApi {
  nvJitLinkResult (*version)(unsigned* major, unsigned* minor) = nullptr;
  nvJitLinkResult (*create)(nvJitLinkHandle* handle, std::uint32_t option_count, const char* const* options) = nullptr;
  nvJitLinkResult (*destroy)(nvJitLinkHandle* handle) = nullptr;
  nvJitLinkResult (*add_data)(nvJitLinkHandle handle, int input_type, const void* data, std::size_t size,
                              const char* name) = nullptr;
  nvJitLinkResult (*add_file)(nvJitLinkHandle handle, int input_type, const char* file) = nullptr;
  nvJitLinkResult (*complete)(nvJitLinkHandle handle) = nullptr;
  nvJitLinkResult (*get_linked_cubin_size)(nvJitLinkHandle handle, std::size_t* size) = nullptr;
  nvJitLinkResult (*get_linked_cubin)(nvJitLinkHandle handle, void* cubin) = nullptr;
  nvJitLinkResult (*get_linked_ptx_size)(nvJitLinkHandle handle, std::size_t* size) = nullptr;
  nvJitLinkResult (*get_linked_ptx)(nvJitLinkHandle handle, char* ptx) = nullptr;
  nvJitLinkResult (*get_error_log_size)(nvJitLinkHandle handle, std::size_t* size) = nullptr;
  nvJitLinkResult (*get_error_log)(nvJitLinkHandle handle, char* log) = nullptr;
  nvJitLinkResult (*get_info_log_size)(nvJitLinkHandle handle, std::size_t* size) = nullptr;
  nvJitLinkResult (*get_info_log)(nvJitLinkHandle handle, char* log) = nullptr;
};

// Both libraries, bound; they live as long as the process (never unloaded).
struct CompilerApi {
  NvrtcApi nvrtc;
  NvJitLinkApi nvjitlink;
  std::string nvrtc_path, nvjitlink_path;        // the files loaded
  std::string nvrtc_version, nvjitlink_version;  // "13.0"
  int major = 0;                                 // both have this major version
};

}  // namespace kiln::jit
