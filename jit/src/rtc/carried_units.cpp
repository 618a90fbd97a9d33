// What run-time compilation reads of a package's carried sources (CARRIED_UNITS).
#include "rtc/carried_units.hpp"

#include <map>

namespace kiln::rtc {

CarriedUnit carried_unit(const format::PackageReader& reader, std::uint32_t record, bool declarations_only) {
  const format::CarriedUnitView view = reader.carried_unit(record);
  CarriedUnit unit;
  unit.record = record;
  unit.unit = std::string(reader.unit(view.unit).source);
  unit.nvrtc_version = std::string(view.nvrtc_version);
  for (std::uint32_t e = view.first_entry; e < view.first_entry + view.entry_count; ++e) {
    const format::CarriedEntryView entry = reader.carried_entry(e);
    const bool declaration = entry.kind == format::CarriedEntryKind::source ||
                             entry.kind == format::CarriedEntryKind::kernel_template;
    if (declarations_only && !declaration) continue;
    const std::string value(entry.value);
    switch (entry.kind) {
      case format::CarriedEntryKind::source:
        unit.inputs.program = value;
        unit.inputs.source_hash = reader.source_text(entry.text).content_hash;
        break;
      case format::CarriedEntryKind::header:
        unit.inputs.headers.push_back(CarriedFileRef{value, reader.source_text(entry.text).content_hash});
        break;
      case format::CarriedEntryKind::include_dir: unit.inputs.include_dirs.push_back(value); break;
      case format::CarriedEntryKind::option: unit.inputs.options.push_back(value); break;
      case format::CarriedEntryKind::link_option: unit.inputs.link_options.push_back(value); break;
      case format::CarriedEntryKind::kernel_template: unit.kernel_templates.push_back(value); break;
    }
  }
  return unit;
}

std::vector<CarriedUnit> carried_units(const format::PackageReader& reader, bool declarations_only) {
  std::vector<CarriedUnit> units;
  for (std::uint32_t i = 0; i < reader.carried_unit_count(); ++i) units.push_back(carried_unit(reader, i, declarations_only));
  return units;
}

bool carries_sources(const format::PackageReader& reader) { return reader.carried_unit_count() > 0; }

bool carries_unit(const format::PackageReader& reader, std::uint32_t unit) {
  return reader.find_carried_unit(unit).has_value();
}

Result<CarriedFiles> carried_files(const format::PackageReader& reader, const CarriedUnit& unit) {
  const format::CarriedUnitView view = reader.carried_unit(unit.record);
  CarriedFiles out;
  std::map<std::uint32_t, std::size_t> decoded;   // text index -> its place in out.texts
  std::vector<std::pair<std::string_view, std::size_t>> named;   // (path, place), in entry order
  // Entry 0 is the source, then the headers in the order carried_units listed them.
  for (std::uint32_t e = view.first_entry; e < view.first_entry + view.entry_count; ++e) {
    const format::CarriedEntryView entry = reader.carried_entry(e);
    if (entry.kind != format::CarriedEntryKind::source && entry.kind != format::CarriedEntryKind::header) continue;
    auto [at, added] = decoded.emplace(entry.text, out.texts.size());
    if (added) {
      Result<std::string> text = reader.read_source_text(entry.text);
      if (!text) {
        Error error = std::move(text).error();
        error.message += " (" + std::string(entry.value) + ", carried for " + unit.unit + ")";
        return error;
      }
      out.texts.push_back(std::move(*text));
    }
    named.emplace_back(entry.value, at->second);
  }
  // The views are taken once `texts` no longer grows.
  for (const auto& [path, place] : named) out.files.push_back(TreeFile{std::string(path), out.texts[place]});
  return out;
}

}  // namespace kiln::rtc
