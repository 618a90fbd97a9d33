// A Makefile-style depfile ("target: dep dep ...") that Ninja and Make read to rebuild a package
// when any source or header it was built from changes.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::package {

// Paths are escaped as GCC's -MD writes them and as Ninja and Make read them back: a space or '#' after
// a backslash, '$' doubled, and the backslashes before a space or '#' doubled. A path with a line break
// or a tab, or that ends in a backslash, which Ninja cannot read back as a name, fails, naming it.
Result<std::string> depfile_text(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs);

}  // namespace kiln::package
