#include "cli/verify_carried.hpp"

#include "format/tree_path.hpp"

#include <set>
#include <string_view>

namespace kiln::cli {

std::vector<std::string> check_carried_sources(const format::PackageReader& reader) {
  std::vector<std::string> problems;
  std::set<std::uint32_t> bad_texts;
  for (std::uint32_t i = 0; i < reader.source_text_count(); ++i) {
    std::string text;
    if (format::ReadError e = reader.read_source_text(i, text)) {
      problems.push_back(e.message);
      bad_texts.insert(i);
    }
  }
  for (std::uint32_t c = 0; c < reader.carried_unit_count(); ++c) {
    const format::CarriedUnitView unit = reader.carried_unit(c);
    const std::string name(reader.unit(unit.unit).source);
    std::set<std::string_view> paths;
    for (std::uint32_t e = unit.first_entry; e < unit.first_entry + unit.entry_count; ++e) {
      const format::CarriedEntryView entry = reader.carried_entry(e);
      const bool file = entry.kind == format::CarriedEntryKind::source || entry.kind == format::CarriedEntryKind::header;
      const std::string what = entry.kind == format::CarriedEntryKind::source ? "source" : "header";
      if (file) {
        if (!format::is_tree_path(entry.value))
          problems.push_back(name + ": carried " + what + " '" + std::string(entry.value) +
                             "' is not a relative path without '.' or '..' parts");
        if (!paths.insert(entry.value).second)
          problems.push_back(name + ": carried file '" + std::string(entry.value) + "' is given twice");
        if (bad_texts.count(entry.text))
          problems.push_back(name + ": carried " + what + " '" + std::string(entry.value) + "' has a damaged text");
      }
      const bool directory = entry.kind == format::CarriedEntryKind::include_dir;
      if (directory && entry.value != "." && !format::is_tree_path(entry.value))
        problems.push_back(name + ": carried include directory '" + std::string(entry.value) +
                           "' is not '.' or a relative path without '.' or '..' parts");
    }
  }
  return problems;
}

}  // namespace kiln::cli
