#include "carried_check.hpp"

#include "limits.hpp"
#include "record_io.hpp"

namespace kiln::format::detail {
namespace {

std::string at(const char* section, std::uint32_t i) { return std::string(section) + " record " + std::to_string(i) + ": "; }

Status check_units(const Tables& t, const StringIndex& strings) {
  std::uint64_t next_entry = 0;
  for (std::uint32_t i = 0; i < t.carried_units.count; ++i) {
    const auto r = load_record<CarriedUnitRecord>(t.carried_units.bytes, i);
    const std::string where = at("CARRIED_UNITS", i);
    if (r.unit >= t.units.count)
      return corrupt(where + "unit " + std::to_string(r.unit) + " is out of range (" + std::to_string(t.units.count) +
                     " units)");
    if (i > 0 && load_record<CarriedUnitRecord>(t.carried_units.bytes, i - 1).unit >= r.unit)
      return corrupt(where + "out of order or a duplicate (the table is sorted by unit)");
    if (r.reserved != 0) return corrupt(where + "reserved field is not 0");
    if (!strings.valid(r.nvrtc_version)) return corrupt(where + "nvrtc_version is not a string inside STRINGS");
    if (r.first_entry != next_entry)
      return corrupt(where + "entries start at " + std::to_string(r.first_entry) +
                     ", not where the previous unit's end (" + std::to_string(next_entry) + ")");
    if (r.entry_count == 0) return corrupt(where + "has no entries (the first must be its source)");
    next_entry += r.entry_count;
    if (next_entry > t.carried_entries.count)
      return corrupt(where + "entries end past CARRIED_ENTRIES (" + std::to_string(t.carried_entries.count) +
                     " records)");
  }
  if (next_entry != t.carried_entries.count)
    return corrupt("CARRIED_ENTRIES has " + std::to_string(t.carried_entries.count) +
                   " records, but CARRIED_UNITS uses " + std::to_string(next_entry));
  return {};
}

Status check_entries(const Tables& t, const StringIndex& strings) {
  for (std::uint32_t u = 0; u < t.carried_units.count; ++u) {
    const auto unit = load_record<CarriedUnitRecord>(t.carried_units.bytes, u);
    std::uint32_t previous_kind = 0;
    for (std::uint32_t i = unit.first_entry; i < unit.first_entry + unit.entry_count; ++i) {
      const auto r = load_record<CarriedEntryRecord>(t.carried_entries.bytes, i);
      const std::string where = at("CARRIED_ENTRIES", i);
      if (r.kind > static_cast<std::uint32_t>(CarriedEntryKind::kernel_template))
        return corrupt(where + "unknown kind " + std::to_string(r.kind));
      const bool first = i == unit.first_entry;
      if (first != (r.kind == static_cast<std::uint32_t>(CarriedEntryKind::source)))
        return corrupt(where +
                       (first ? "a unit's first entry must be its source" : "a unit has one source, its first entry"));
      if (r.kind < previous_kind) return corrupt(where + "out of kind order");
      previous_kind = r.kind;
      if (!strings.valid(r.value) || r.value.length == 0)
        return corrupt(where + "value is not a non-empty string inside STRINGS");
      const bool has_text = r.kind <= static_cast<std::uint32_t>(CarriedEntryKind::header);
      if (has_text && r.text >= t.source_texts.count)
        return corrupt(where + "text " + std::to_string(r.text) + " is out of range (" +
                       std::to_string(t.source_texts.count) + " SOURCE_TEXTS records)");
      if (!has_text && r.text != 0) return corrupt(where + "text must be 0 for an entry without a file");
    }
  }
  return {};
}

Status check_texts(const Tables& t) {
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < t.source_texts.count; ++i) {
    const auto r = load_record<SourceTextRecord>(t.source_texts.bytes, i);
    const std::string where = at("SOURCE_TEXTS", i);
    if (i > 0 && load_record<SourceTextRecord>(t.source_texts.bytes, i - 1).content_hash >= r.content_hash)
      return corrupt(where + "out of order or a duplicate (the table is sorted by content hash)");
    if (r.encoding > static_cast<std::uint32_t>(ImageEncoding::zstd)) return corrupt(where + "unknown encoding");
    if (r.reserved != 0) return corrupt(where + "reserved field is not 0");
    if (r.offset > t.text_blobs.size() || r.stored_size > t.text_blobs.size() - r.offset)
      return corrupt(where + "bytes lie outside TEXT_BLOBS");
    if (r.encoding == static_cast<std::uint32_t>(ImageEncoding::raw) && r.stored_size != r.raw_size)
      return corrupt(where + "a raw text's stored and raw sizes differ");
    if (r.raw_size > max_image_size(t.file_size))
      return corrupt(where + "raw size is beyond the limits of this package");
    total += r.raw_size;
    if (total > max_total_image_size(t.file_size))
      return corrupt(where + "the texts' raw sizes add up beyond the limits");
  }
  return {};
}

}  // namespace

Status check_carried(const Tables& tables, const StringIndex& strings) {
  KILN_TRY(check_units(tables, strings));
  KILN_TRY(check_entries(tables, strings));
  return check_texts(tables);
}

}  // namespace kiln::format::detail
