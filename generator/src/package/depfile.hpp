// A Makefile-style depfile ("target: dep dep ...") that Ninja and Make read to rebuild a package
// when any source or header it was built from changes.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::package {

// Paths are escaped as GCC's -MD writes them and as Ninja and Make read them back: a space, '#' or ':'
// after a backslash, '$' doubled, and the backslashes before those doubled. A path Make or Ninja would
// read as something else fails, naming it and the byte: a line break, a tab or another control byte;
// ';', '|', '=', a wildcard ('*', '?', '[', ']') or parentheses, which Make reads as syntax (a ';' as
// a recipe it runs); a quote, '&', '`', '<', '>' or '^', at which Ninja ends a name; or a final backslash.
Result<std::string> depfile_text(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs);

}  // namespace kiln::package
