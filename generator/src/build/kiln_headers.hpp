// Where Kiln's own headers are, for scanning host sources that include <kiln/kiln.hpp> to make their
// requests: an installed kiln finds them at <prefix>/include, one run from its build tree in the
// source tree it was built from.
#pragma once

#include <string>

namespace kiln::build {

std::string kiln_include_dir();

}  // namespace kiln::build
