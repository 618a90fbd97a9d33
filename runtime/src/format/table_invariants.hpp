// Private to the reader: the rules that span tables, checked after check_tables has checked every
// reference, index and order: image sizes within the limits (limits.hpp), images that do not share
// bytes, and every kernel findable by its own names.
#pragma once

#include "table_check.hpp"

#include <string>

namespace kiln::format::detail {

// "" or a message naming the record ("IMAGES record 2: bytes [0, +96) overlap image 1's").
// O(n log n) in the number of records, linear in the size of STRINGS.
std::string check_invariants(const Tables& tables);

// "" or why an image of `raw_size` bytes is over the limit for a package of `file_size` bytes.
std::string raw_size_problem(std::uint64_t raw_size, std::uint64_t file_size);

}  // namespace kiln::format::detail
