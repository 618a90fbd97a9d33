// The loader's one way to the compile library (libkiln_jit.so.0, kiln_jit.dll; jit/ in the tree):
// the interface the compile library implements, and where the loader finds it. The loader links
// none of NVRTC's driving, the options table, the run-time cache or the package writer; it asks
// this interface only when a kernel must be compiled (a miss in a package that carries sources, a
// program from strings) and loads the library then, once per process.
//
// Both sides are built from one tree: the library's entry point takes k_compile_interface_id,
// which names this file's declarations, and answers null for any other, so a compile library of
// another Kiln is refused with a message instead of being called with other layouts.
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::core {

// Change it with anything declared below: a library built against another text is refused.
inline constexpr const char* k_compile_interface_id = "kiln-compile-interface-2";

// What a compile gave. A compile that gives nothing is an Error whose status the compile library
// chooses, as the C ABI reports it: KERNEL_NOT_FOUND (no carried source declares the kernel),
// NO_COMPILER (no usable NVRTC or nvJitLink), COMPILE_FAILED (NVRTC's or nvJitLink's log in
// Error::log), CORRUPT (the package carries what a build never does; nothing is written),
// OUT_OF_MEMORY. Nothing is thrown across the libraries' boundary.
struct CompiledPackage {
  std::shared_ptr<const std::vector<std::byte>> bytes;   // the compiled package
  std::string expression;            // the name expression compiled ("mylib::block_sum<double, 512>")
};

// kiln_program as plain data.
struct ProgramRequest {
  std::string name;                  // NVRTC's program name; a path makes quoted includes resolve beside it
  std::string source;
  std::vector<std::pair<std::string, std::string>> headers;   // in memory: name -> text
  std::vector<std::string> include_dirs;
  std::vector<std::string> options;
  std::vector<std::string> kernels;  // name expressions
  std::vector<std::string> globals;  // variables to keep
};

// The compile library's share of kiln_cache_stats (the loader counts its own package hits).
struct CompileCounters {
  std::uint64_t memory_hits = 0, cache_hits = 0, compiles = 0, compile_failures = 0, compiled_bytes = 0,
                cache_bytes_read = 0;
};

class CompileLibrary {
public:
  // KILN_JIT: false when run-time compilation is turned off.
  virtual bool enabled() const = 0;
  // Whether a source the package `package` (labelled `label`) carries may declare a kernel named
  // `request`: KERNEL_NOT_FOUND saying what the package carries when none does. Needs neither a
  // driver nor a compiler.
  virtual Status check_declared(std::span<const std::byte> package, std::string_view label,
                                std::string_view request) = 0;
  // The kernel `request` ("block_sum<double, 512>") compiled for `target` ("sm_90") from a source the
  // package carries, through the process's cache.
  virtual Result<CompiledPackage> package_kernel(std::span<const std::byte> package, std::string_view label,
                                                 std::string_view request, const std::string& target) = 0;
  // A program from strings, compiled for `target` through the process's cache.
  virtual Result<CompiledPackage> program(const ProgramRequest& request, const std::string& target) = 0;
  // A directory to search for NVRTC and nvJitLink (kiln_compiler_add_search_dir).
  virtual void add_search_directory(const std::string& directory) = 0;
  virtual CompileCounters counters() const = 0;

protected:
  ~CompileLibrary() = default;   // the library's, alive until the process ends
};

// The process's compile library, found and loaded on the first call: KILN_JIT_LIBRARY (a path, read
// as KILN_NVRTC is), else the file beside the module that holds the loader (libkiln_jit.so.0 beside
// libkiln.so.0), or the one linked into the module (Kiln::jit_static). NO_COMPILER naming where it
// looked when there is none. Later calls return the same answer.
Status compile_library(CompileLibrary*& out);
// A directory to search for NVRTC and nvJitLink (kiln_compiler_add_search_dir): kept, and handed to
// the library when it loads (or at once when it has), so registering one loads nothing.
void add_compiler_search_directory(const std::string& directory);
// Every directory registered so far, in order and without repeats, as the library keeps them (a
// direct record's key holds them: direct_hits.hpp).
std::vector<std::string> compiler_search_directories();
// The search compile_library makes in a module without Kiln::jit_static, apart from the process's
// environment and its answer kept, for tests: `variable_value` is KILN_JIT_LIBRARY's value (null or
// empty: unset) and `loader_file` the loader's own file.
Status find_compile_library(const char* variable_value, const std::string& loader_file, CompileLibrary*& out);
// Whether the library has been loaded (kiln_cache_get_stats adds its counters only then: asking
// for statistics loads nothing).
CompileLibrary* loaded_compile_library();

// The loader's count of kernels compiled earlier in this process that it found again (kiln_cache_stats'
// memory_hits with the compile library's; package hits are Package::package_hits).
void count_memory_hit();
std::uint64_t memory_hits();

}  // namespace kiln::core

// The compile library's entry point: its CompileLibrary for the interface `interface_id`, or null when
// the library was built against another. Exported by libkiln_jit.so.0; a module that links
// Kiln::jit_static hides it with the rest of the archive (--exclude-libs).
#if defined(_WIN32)
#  define KILN_JIT_ENTRY __declspec(dllexport)
#else
#  define KILN_JIT_ENTRY __attribute__((visibility("default")))
#endif
extern "C" KILN_JIT_ENTRY kiln::core::CompileLibrary* kiln_jit_compile_library(const char* interface_id);
