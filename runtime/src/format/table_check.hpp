// Private to the reader: the index sections of an opened package and the one pass that checks them
// before any accessor trusts a string reference, index or sort order.
#pragma once

#include "layout.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kiln::format::detail {

struct RecordTable {
  std::span<const std::byte> bytes;  // exactly count records
  std::uint32_t count = 0;
};

struct Tables {
  std::span<const std::byte> strings;
  std::span<const std::byte> blobs;
  RecordTable targets, units, images, kernels, params, names, variables, sources, metadata;
  RecordTable kernel_targets;
  RecordTable unit_sources;
  RecordTable carried_units, carried_entries, source_texts;   // empty unless sources are carried
  std::span<const std::byte> text_blobs;
  RecordTable name_index;      // slots (format/name_index.hpp)
  std::span<const std::byte> index_pages;   // INDEX_PAGES
  std::uint64_t file_size = 0;  // FileHeader.file_size: bounds the images' decoded sizes
};

// A fault of the file's tables, as every check reports it: CORRUPT, `message` naming the section
// and record; the reader puts the file in where.file. A Status, made out of line: the checks return
// it as it is, and the loader's size is held (core/CMakeLists.txt).
Status corrupt(std::string message);

// The words of every check, open()'s and a deferred reader's at first use (checks_at_use.cpp), so
// that a file gets the same message whichever reader finds its fault.
std::string at_record(SectionKind kind, std::uint32_t i);   // "KERNELS record 3: "
// "unit 7 is out of range (2 UNITS records)"
std::string out_of_range(const char* field, std::uint32_t value, std::uint32_t count, SectionKind table);
// "name (offset 9, length 4) is not a NUL-terminated string inside STRINGS"
std::string not_a_string(const char* field, StrRef ref);
// "out of order or a duplicate (the table is sorted by <key>)"
std::string out_of_order(const char* key);

// The string a StrRef names, or "" when it is out of bounds (check_tables refuses such files, so
// accessors of an opened package never see "" for a bad reference).
std::string_view string_at(std::span<const std::byte> strings, StrRef ref);

// Checks every StrRef, every index into another table, the grouping of IMAGES and the order of
// every sorted table, then the invariants of table_invariants.hpp. O(n log n) in the index size.
// CORRUPT naming the section and record ("KERNELS record 3: unit 7 is out of range (2 units)") when
// a rule is broken.
Status check_tables(const Tables& tables);

}  // namespace kiln::format::detail
