// The package first_launch_cpu measures by default: the shape of examples/saxpy's (two units, the
// default targets sm_75 ... sm_121 and compute_75, cubins of the same sizes, the same kernel names),
// with minimal well-formed cubins in place of real code, stored raw as kiln build stores them.
#pragma once

#include "util/result.hpp"

#include <string>

namespace kiln::bench {

// Writes the package to `path`.
Status write_saxpy_like_package(const std::string& path);

}  // namespace kiln::bench
