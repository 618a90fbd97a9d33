// Finds NVRTC and nvJitLink and binds them with dlopen/dlsym into one table (compiler_api.hpp), so
// that neither libkiln_jit nor kiln NEEDs them. Run-time compiles look for them, in order:
//   1. KILN_NVRTC / KILN_NVJITLINK: files
//   2. directories registered with add_search_directory (the Python binding registers the
//      nvidia-cuda-nvrtc and nvidia-nvjitlink wheels' lib/ directories)
//   3. $CUDA_PATH, then $CUDA_HOME: their lib64/, lib/ and targets/<arch>-linux/lib/
//   4. the dynamic loader's search path (dlopen of the bare soname)
// by sonames libnvrtc.so.13, .so.12 (libnvJitLink likewise), newest first. A pair must share one major
// version (NVRTC's LTO-IR is read by the nvJitLink of its major), and a library of another major than
// the caller needs (the NVRTC that wrote a package's options) is skipped with a message. An NVRTC
// opened by path has its builtins (libnvrtc-builtins.so.<major>.<minor>, which it opens by name at its
// first compile) opened first from its own directory: NVIDIA's wheels' lib/ is on no loader path.
#pragma once

#include "nvrtc/compiler_api.hpp"
#include "util/result.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::jit {

using Environment = std::function<std::optional<std::string>(const char* name)>;

struct SearchSettings {
  Environment environment;                   // platform::environment, or a table in tests
  std::vector<std::string> directories;      // registered directories (2.)
  std::vector<int> majors = {13, 12};        // sonames tried, newest first
};

// The process's settings: platform::environment (secure_getenv) and the directories registered so far.
SearchSettings process_search_settings();
void add_search_directory(const std::string& directory);

// Every file the search tries by path for NVRTC and for nvJitLink, in order (not the bare sonames left
// to the dynamic loader): a direct record of the run-time cache (store/direct_record.hpp) holds the
// identity of those up to the one loaded, or that they are absent, so that a file added, removed or
// replaced on the way is seen.
struct SearchedFiles {
  std::vector<std::string> nvrtc, nvjitlink;
};
SearchedFiles searched_files(const SearchSettings& settings);

// Loads the first usable pair for `required_major` (0: any). The error names every place looked and
// why each was refused ("not found", dlopen's message, a missing symbol, another major version).
// Libraries that were loaded stay loaded (never dlclose'd: their code may be in use).
Result<CompilerApi> load_compiler(const SearchSettings& settings, int required_major);

// Binds the two files named and no others, opened as given by the system's loader: the generator's
// libraries, fixed when kiln was built (generator/src/compile/nvrtc_library.hpp), whatever the
// variables above say. No search and no version rule. The error names the file and why:
// "cannot load <file>: <the system's message>", "cannot bind <file>: it lacks <symbol>, ...".
Result<CompilerApi> load_compiler_files(const std::string& nvrtc_file, const std::string& nvjitlink_file);

}  // namespace kiln::jit
