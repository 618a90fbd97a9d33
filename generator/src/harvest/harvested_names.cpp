#include "harvest/harvested_names.hpp"

#include "format/names.hpp"
#include "format/target.hpp"
#include "harvest/name_expression.hpp"
#include "store/harvest_record.hpp"

#include <map>
#include <set>
#include <utility>

namespace kiln::harvest {

namespace {

std::set<std::string> listed_names(const manifest::Manifest& manifest, const manifest::SourceEntry& source) {
  std::set<std::string> names;
  for (const std::string& name : source.instantiations) names.insert(format::normalize_name(name));
  for (const std::string& name : manifest.instantiations) names.insert(format::normalize_name(name));
  return names;
}

}  // namespace

bool resolves_to(std::string_view asked, std::string_view expression) {
  const auto [asked_base, asked_arguments] = format::split_template_name(format::normalize_name(asked));
  const auto [base, arguments] = format::split_template_name(format::normalize_name(expression));
  if (asked_base.empty() || arguments != asked_arguments) return false;
  return base == asked_base || (base.size() > asked_base.size() + 2 && base.ends_with("::" + asked_base));
}

Harvest harvest(const manifest::Manifest& manifest, const std::vector<std::string>& caches) {
  Harvest result;
  std::map<std::string, std::set<std::string>> listed;   // per source path
  for (const manifest::SourceEntry& source : manifest.sources)
    if (!listed.contains(source.path)) listed[source.path] = listed_names(manifest, source);
  // (source, normalized expression) -> the name as resolved, and cache index -> targets.
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::map<std::size_t, std::set<std::string>>>>
      found;
  for (std::size_t c = 0; c < caches.size(); ++c) {
    store::HarvestRead read = store::read_harvest_records(caches[c]);
    result.warnings.insert(result.warnings.end(), read.warnings.begin(), read.warnings.end());
    for (std::size_t i = 0; i < read.records.size(); ++i) {
      const store::HarvestRecord& record = read.records[i];
      const std::string file = read.files[i].string();
      if (!is_name_expression(record.expression)) {
        result.warnings.push_back(file + ": '" + record.expression +
                                  "' is not a kernel's name expression (a qualified name and one template argument "
                                  "list, nothing else); skipped");
        continue;
      }
      if (!resolves_to(record.asked, record.expression)) {
        result.warnings.push_back(file + ": the name '" + record.expression + "' is not what the runtime resolves '" +
                                  record.asked + "' to; skipped");
        continue;
      }
      if (!format::parse_target(record.target)) {
        result.warnings.push_back(file + ": '" + record.target + "' is not a target; skipped");
        continue;
      }
      if (!record.package_name.empty() && record.package_name != manifest.name) {
        ++result.other_package;
        continue;
      }
      const auto sources = listed.find(record.source);
      if (sources == listed.end()) {
        ++result.other_source;
        continue;
      }
      const std::string normalized = format::normalize_name(record.expression);
      if (sources->second.contains(normalized)) {
        ++result.listed;
        continue;
      }
      auto& [expression, targets] = found[{record.source, normalized}];
      // Spellings of one name differ only in spaces: the first in normalized order is kept, the same
      // whichever cache is read first.
      if (expression.empty() || record.expression < expression) expression = record.expression;
      targets[c].insert(record.target);
    }
  }
  for (const auto& [key, value] : found) {
    HarvestedName name{key.first, value.first, {}};
    for (const auto& [cache, targets] : value.second)
      name.origins.push_back(Origin{caches[cache], std::vector<std::string>(targets.begin(), targets.end())});
    result.names.push_back(std::move(name));
  }
  return result;
}

}  // namespace kiln::harvest
