// Private to the reader: the UNIT_SOURCES section, checked after check_tables has checked UNITS.
#pragma once

#include "string_index.hpp"
#include "table_check.hpp"

namespace kiln::format::detail {

// Every record's unit in range, role known and source a non-empty string; the table sorted by
// (unit, source) without duplicates; the records of one unit of one role, a variant's only one,
// and no link group whose one source is its own name (such a unit has no records). CORRUPT naming
// the record ("UNIT_SOURCES record 2: unit 9 is out of range (3 UNITS records)") otherwise.
// O(n log n) in the records and O(|STRINGS| log n) in string bytes, however records share strings.
Status check_unit_sources(const Tables& tables, const StringIndex& strings);

}  // namespace kiln::format::detail
