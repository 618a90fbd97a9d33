// A Makefile-style depfile ("target: dep dep ...") that Ninja and Make read to rebuild a package
// when any source or header it was built from changes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::package {

// Escapes spaces, '#' and '$' the way GCC's -MD output does.
std::string depfile_text(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs);

}  // namespace kiln::package
