// The compile cache's key (like ccache's direct mode): a tagged XXH3-128 (util/hasher.hpp) of
// everything known before compiling that decides a job's output: Kiln's cache schema, the toolchain
// (NVRTC and nvJitLink versions, the toolkit's version.json; for nvcc jobs nvcc's and the host
// compiler's --version), the compiler, the source's path relative to the manifest (the program name
// and random seed) and its bytes, the target, name expressions, variables, kept symbols and every
// option, with the project, the build directory, Kiln's include directory and the toolkit written as
// <root>, <build>, <kiln> and <cuda> (util/named_roots.hpp). No absolute path and no time goes in, so
// a copy of the tree elsewhere, another build directory or another machine finds the same keys; only
// -lineinfo and -G, whose images record the compile directory, add it. The headers a compile reads are
// known only afterwards: the entry lists them with their content hashes (compile_cache.hpp).
#pragma once

#include "compile/compile_job.hpp"
#include "util/named_roots.hpp"

#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace kiln::compile {

// Bump when Kiln compiles the same job differently (another option, another link step), so that
// older entries miss. Written into every key.
inline constexpr std::string_view k_compile_cache_schema = "kiln-compile-cache 3";   // 3: nvcc compiles its units to cubins itself

struct CacheContext {
  std::filesystem::path cuda_root;              // the toolkit the build uses: <cuda> in keys
  std::string toolchain;                        // NVRTC, nvJitLink, toolkit and Kiln versions
  // nvcc's and its host compiler's identity, asked only when an nvcc job is looked up (it runs them).
  std::function<std::string(const std::filesystem::path& nvcc)> nvcc_identity;
  struct timespec build_start {};               // outputs of files changed since are not stored
  std::map<std::string, std::string> nvcc_identities;   // nvcc path -> identity, asked once per build
  std::filesystem::path build_dir;              // <build> in keys and entries (named_roots.hpp)
  std::filesystem::path kiln_include_dir;       // <kiln>
};

// The roots a job's paths are recorded against: its root (the manifest directory) and the context's.
NamedRoots named_roots(const CompileJob& job, const CacheContext& context);

struct CompileKey {
  std::string hex;                              // 32 hex digits: the store key
  std::string inputs;                           // what went in, one "tag: value" line each
};

// Nothing when the source cannot be read (the compile then reports it).
std::optional<CompileKey> compile_key(const CompileJob& job, CacheContext& context);

// The key of NVRTC's verdict on a unit (CompileCache::nvrtc_rejection): the key of the unit's NVRTC
// job (any target's) with the target left out, since NVRTC's "I cannot compile this" holds for all.
std::optional<CompileKey> verdict_key(const CompileJob& nvrtc_job, CacheContext& context);

// The toolchain line of CacheContext for this toolkit and Kiln version.
std::string toolchain_identity(const std::filesystem::path& cuda_root, const std::string& nvrtc,
                               const std::string& nvjitlink, const std::string& kiln_version);
// `nvcc --version` and its host compiler's `--version` ($NVCC_CCBIN, else g++ on PATH), and
// $NVCC_PREPEND_FLAGS / $NVCC_APPEND_FLAGS, which nvcc adds to every command line.
std::string nvcc_toolchain_identity(const std::filesystem::path& nvcc);

}  // namespace kiln::compile
