// "Did you mean": the names in a package nearest to one that was not found, by edit distance, so a
// typo in a template argument ("block_sum<float, 255>") points at what the package does hold.
#pragma once

#include "format/package_reader.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln::core {

// Levenshtein distance over bytes. Only the first 256 bytes of each string count, which bounds the
// cost of a hostile name and changes nothing for real ones.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `count` kernels nearest to `wanted`, compared with every name in NAMES (canonical, aliases,
// lowered) and shown by canonical name, each kernel once, ", "-separated. Ties keep NAMES order.
std::string nearest_kernel_names(const format::PackageReader& reader, std::string_view wanted, std::size_t count);

// The same over the variables' names.
std::string nearest_variable_names(const format::PackageReader& reader, std::string_view wanted, std::size_t count);

}  // namespace kiln::core
