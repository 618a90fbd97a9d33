// Private to the reader: the checks open() makes on carried sources. Structure only, in time
// linear in the records: every reference in range and every string inside STRINGS; CARRIED_UNITS
// sorted by unit, its records tiling CARRIED_ENTRIES; each unit's entries starting with its one
// source, in kind order; SOURCE_TEXTS sorted by hash, inside TEXT_BLOBS, within the size limits.
// What costs time in proportion to the texts (decoding, hashes, path rules) is `kiln verify`'s.
#pragma once

#include "string_index.hpp"
#include "table_check.hpp"

namespace kiln::format::detail {

// CORRUPT naming the section and record ("CARRIED_ENTRIES record 4: text 9 is out of range") when a
// rule is broken.
Status check_carried(const Tables& tables, const StringIndex& strings);

}  // namespace kiln::format::detail
