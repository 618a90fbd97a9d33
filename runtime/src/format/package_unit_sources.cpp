// PackageReader's view of UNIT_SOURCES: what each unit is built from. open() has checked the
// table (unit_sources_check.hpp), so a unit's records are contiguous, sorted and of one role.
#include "package_reader.hpp"

#include "record_io.hpp"
#include "table_check.hpp"

namespace kiln::format {
// The first record of `unit` or a later unit (the table is sorted by unit).
std::uint32_t PackageReader::first_unit_source(std::uint32_t unit) const {
  std::uint32_t low = 0;
  std::uint32_t high = m_unit_sources.count;
  while (low < high) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (record<UnitSourceRecord>(m_unit_sources, mid).unit < unit) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

UnitKind PackageReader::unit_kind(std::uint32_t unit) const {
  const std::uint32_t at = first_unit_source(unit);
  if (at == m_unit_sources.count) return UnitKind::source;
  const auto r = record<UnitSourceRecord>(m_unit_sources, at);
  if (r.unit != unit) return UnitKind::source;
  return r.role == static_cast<std::uint32_t>(UnitSourceRole::variant_of) ? UnitKind::variant : UnitKind::link_group;
}

std::vector<std::string_view> PackageReader::unit_sources(std::uint32_t unit) const {
  std::vector<std::string_view> sources;
  if (unit >= m_units.count) return sources;
  for (std::uint32_t at = first_unit_source(unit); at < m_unit_sources.count; ++at) {
    const auto r = record<UnitSourceRecord>(m_unit_sources, at);
    if (r.unit != unit) break;
    sources.push_back(string(r.source));
  }
  if (sources.empty()) sources.push_back(this->unit(unit).source);
  return sources;
}

}  // namespace kiln::format
