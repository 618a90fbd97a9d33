#include "cli/verify_carried.hpp"

#include "options/carried_rules.hpp"

#include <set>
#include <string_view>

namespace kiln::cli {

std::vector<std::string> check_carried_sources(const format::PackageReader& reader) {
  std::vector<std::string> problems;
  std::set<std::uint32_t> bad_texts;
  for (std::uint32_t i = 0; i < reader.source_text_count(); ++i) {
    if (Result<std::string> text = reader.read_source_text(i); !text) {
      problems.push_back(error_text(text.error()));
      bad_texts.insert(i);
    }
  }
  for (std::uint32_t c = 0; c < reader.carried_unit_count(); ++c) {
    const format::CarriedUnitView unit = reader.carried_unit(c);
    const std::string name(reader.unit(unit.unit).source);
    const options::CarriedValues values = options::carried_values(reader, c);
    for (const std::string& problem : options::carried_problems(values, reader.bytes().size()))
      problems.push_back(name + ": " + problem);
    for (std::uint32_t e = unit.first_entry; e < unit.first_entry + unit.entry_count; ++e) {
      const format::CarriedEntryView entry = reader.carried_entry(e);
      const bool source = entry.kind == format::CarriedEntryKind::source;
      if ((source || entry.kind == format::CarriedEntryKind::header) && bad_texts.count(entry.text))
        problems.push_back(name + ": carried " + (source ? "source" : "header") + " '" + std::string(entry.value) +
                           "' has a damaged text");
    }
  }
  return problems;
}

}  // namespace kiln::cli
