// What the CLI tests read back from a package kiln wrote.
#pragma once

#include <filesystem>
#include <set>
#include <string>

namespace kiln::test {

// The canonical names of the package's kernels ("scale<float>", "fill"); throws if it does not open.
std::set<std::string> kernels_of(const std::filesystem::path& package);

}  // namespace kiln::test
