// Private to the reader: the rules that span tables, checked after check_tables has checked every
// reference, index and order: image sizes within the limits (limits.hpp), images that do not share
// bytes, and every kernel findable by its own names.
#pragma once

#include "table_check.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::format::detail {

// "" or a message naming the record ("IMAGES record 2: bytes [0, +96) overlap image 1's").
// O(n log n) in the number of records, linear in the size of STRINGS.
std::string check_invariants(const Tables& tables);

// Why kernel `kernel`'s own name (its normalized lowered or canonical `name`, `field` saying which)
// does not find it: found another kernel's NAMES record, or none. The words of rule 11 for both
// checks, open()'s and a deferred reader's at first use.
std::string own_name_problem(std::uint32_t kernel, const char* field, std::string_view name,
                             std::optional<std::uint32_t> found);

// "" or why an image of `raw_size` bytes is over the limit for a package of `file_size` bytes.
std::string raw_size_problem(std::uint64_t raw_size, std::uint64_t file_size);

}  // namespace kiln::format::detail
