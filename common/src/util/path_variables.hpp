// Variables that name a library, or a directory to load one from (KILN_LIBCUDA, KILN_JIT_LIBRARY,
// KILN_NVRTC, KILN_NVJITLINK, CUDA_PATH, CUDA_HOME): one rule for the loader, the compile library and
// the generator.
#pragma once

#include "util/result.hpp"

#include <string_view>

namespace kiln {

// Whether `value`, the value of `variable`, is rooted ("/usr/lib", "C:\CUDA", "\\server\share"):
// INVALID_ARGUMENT saying why it is refused otherwise, since a relative one would load whatever lies
// at that path under the working directory.
Status check_rooted_path(const char* variable, std::string_view value);

}  // namespace kiln
