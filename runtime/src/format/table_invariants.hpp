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

// CORRUPT naming the record ("IMAGES record 2: bytes [0, +96) overlap image 1's") when a rule is
// broken. O(n log n) in the number of records, linear in the size of STRINGS.
Status check_invariants(const Tables& tables);

// Why kernel `kernel`'s own name (its normalized lowered or canonical `name`, `field` saying which)
// does not find it: found another kernel's NAMES record, or none. The words of rule 11 for both
// checks, open()'s and a deferred reader's at first use.
std::string own_name_problem(std::uint32_t kernel, const char* field, std::string_view name,
                             std::optional<std::uint32_t> found);

// Whether an image of `raw_size` bytes is within the limit for a package of `file_size` bytes:
// CORRUPT saying by how much it is not (without the record, which the caller names).
Status check_raw_size(std::uint64_t raw_size, std::uint64_t file_size);

}  // namespace kiln::format::detail
