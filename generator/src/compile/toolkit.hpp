// The CUDA toolkit the generator compiles with: where it is (for include directories and the
// <cuda> path token), the NVRTC and nvJitLink versions, and which architectures NVRTC supports.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::compile {

struct Toolkit {
  std::filesystem::path root;            // e.g. /usr/local/cuda; "<cuda>" in packages and messages
  int nvrtc_major = 0, nvrtc_minor = 0;
  int nvjitlink_major = 0, nvjitlink_minor = 0;
  std::vector<int> supported_archs;      // nvrtcGetSupportedArchs: 75 80 ... 121

  std::string nvrtc_version() const;     // "13.0"
  std::string nvjitlink_version() const;
  // Every SASS architecture NVRTC supports, plus PTX for the lowest: runs on every GPU the toolkit
  // supports without compiling anything, and on later GPUs through the driver's JIT.
  std::vector<std::string> default_targets() const;
  bool supports(int arch) const;
  // Why NVRTC refuses target `name` (of an architecture it does not support), as kiln build and
  // kiln check both say it: "target 'sm_52' is not supported by NVRTC 13.0 (it supports 75 80 ...)".
  std::string unsupported_target(const std::string& name) const;
  // Replaces a leading "<cuda>" with the root, and the root with "<cuda>" (for recorded paths).
  std::filesystem::path expand(const std::string& path_with_token) const;
  std::string tokenize(const std::filesystem::path& absolute) const;
};

// Finds the toolkit: `explicit_root` if given, else $CUDA_PATH, $CUDA_HOME, the directory above the
// nvcc on PATH, and the root Kiln was built against, in that order; the root must hold include/cuda.h.
// Where none does, NVIDIA's wheels' tree beside kiln or in $VIRTUAL_ENV (wheel_toolkit.hpp). Its
// NVRTC and nvJitLink are the build's where the files kiln was built against are absent.
// NVRTC's and nvJitLink's versions and architectures come from `facts_dir` where they were kept
// (nvrtc_library.hpp), so that a build need not load them; an empty one asks the libraries.
Result<Toolkit> find_toolkit(const std::filesystem::path& explicit_root = {},
                             const std::filesystem::path& facts_dir = {});

}  // namespace kiln::compile
