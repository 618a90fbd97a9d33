// PackageReader's view of carried sources (CARRIED_UNITS, CARRIED_ENTRIES, SOURCE_TEXTS,
// TEXT_BLOBS). open() has checked the tables (carried_check.hpp); a text's bytes are checked when read.
#include "package_reader.hpp"

#include "checksum.hpp"
#include "image_codec.hpp"
#include "record_io.hpp"
#include "table_check.hpp"

#include <cstring>

namespace kiln::format {

CarriedUnitView PackageReader::carried_unit(std::uint32_t i) const {
  const auto r = record<CarriedUnitRecord>(m_carried_units, i);
  return CarriedUnitView{r.unit, string(r.nvrtc_version), r.first_entry, r.entry_count};
}

std::optional<std::uint32_t> PackageReader::find_carried_unit(std::uint32_t unit) const {
  std::uint32_t low = 0;
  std::uint32_t high = m_carried_units.count;
  while (low < high) {   // sorted by unit
    const std::uint32_t mid = low + (high - low) / 2;
    const std::uint32_t at = record<CarriedUnitRecord>(m_carried_units, mid).unit;
    if (at == unit) return mid;
    if (at < unit) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return std::nullopt;
}

CarriedEntryView PackageReader::carried_entry(std::uint32_t i) const {
  const auto r = record<CarriedEntryRecord>(m_carried_entries, i);
  return CarriedEntryView{static_cast<CarriedEntryKind>(r.kind), string(r.value), r.text};
}

SourceTextView PackageReader::source_text(std::uint32_t i) const {
  const auto r = record<SourceTextRecord>(m_source_texts, i);
  return SourceTextView{r.content_hash, static_cast<ImageEncoding>(r.encoding), r.stored_size, r.raw_size};
}

Result<std::string> PackageReader::read_source_text(std::uint32_t i) const {
  const auto fail = [&](const std::string& why) {
    return refused(KILN_STATUS_IMAGE_CORRUPT, "carried source text " + std::to_string(i) + " " + why);
  };
  if (i >= m_source_texts.count) return fail("does not exist");
  const auto r = record<SourceTextRecord>(m_source_texts, i);
  // Checked at open, or by check_all() before a deferred reader's texts are used.
  if (r.offset > m_text_blobs.size() || r.stored_size > m_text_blobs.size() - r.offset) return fail("lies outside TEXT_BLOBS");
  const std::span<const std::byte> stored = loaded(m_text_blobs.subspan(r.offset, r.stored_size));
  if (stored.size() != r.stored_size) {
    const Status pages = page_error();
    return fail("cannot be read: " + (pages.ok() ? std::string() : pages.error().message));
  }
  std::vector<std::byte> decoded;
  std::span<const std::byte> raw = stored;
  if (r.encoding == static_cast<std::uint32_t>(ImageEncoding::zstd)) {
    if (Status decoded_whole = detail::zstd_decompress(stored, r.raw_size, decoded); !decoded_whole)
      return fail(decoded_whole.error().message);
    raw = decoded;
  }
  if (checksum(raw) != r.content_hash) return fail("fails its checksum");
  return std::string(reinterpret_cast<const char*>(raw.data()), raw.size());
}

}  // namespace kiln::format
