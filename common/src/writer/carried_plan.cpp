// plan_carried: a package's carried sources checked and put in file order, texts stored once.
#include "writer/write_plan.hpp"

#include "format/checksum.hpp"
#include "format/tree_path.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace kiln::format::detail {
namespace {

std::optional<std::uint32_t> unit_index(const WritePlan& plan, const std::string& source) {
  for (std::uint32_t u = 0; u < plan.units.size(); ++u)
    if (plan.units[u]->source == source) return u;
  return std::nullopt;
}

}  // namespace

Status plan_carried(const PackageContents& contents, WritePlan& plan) {
  if (contents.carried.empty()) return {};
  std::map<std::uint64_t, const std::string*> texts;   // by hash: stored once
  Status collided;   // the first two texts with one hash, if any: told once every unit is checked
  const auto text_of = [&](const std::string& text, const std::string& where) -> std::uint64_t {
    const std::uint64_t hash = checksum(std::as_bytes(std::span(text.data(), text.size())));
    auto [it, added] = texts.emplace(hash, &text);
    if (!added && *it->second != text && collided.ok())
      collided = refused(where + ": two different texts have one hash");
    return hash;
  };
  std::vector<std::pair<PlannedCarriedUnit, std::vector<std::uint64_t>>> units;   // entries' text hashes
  std::set<std::uint32_t> seen;
  for (const PackageCarriedUnit& carried : contents.carried) {
    const std::string where = "carried unit '" + carried.unit_source + "'";
    const std::optional<std::uint32_t> unit = unit_index(plan, carried.unit_source);
    if (!unit) return refused(where + " is not a unit of the package");
    if (!seen.insert(*unit).second) return refused(where + " is carried twice");
    if (!is_tree_path(carried.source.path))
      return refused(where + ": source path '" + carried.source.path +
                     "' is not a relative path without '.' or '..' parts");
    PlannedCarriedUnit planned{*unit, carried.nvrtc_version, {}};
    std::vector<std::uint64_t> hashes;
    planned.entries.push_back({CarriedEntryKind::source, carried.source.path, 0});
    hashes.push_back(text_of(carried.source.text, where));
    std::vector<const PackageCarriedFile*> headers;
    for (const PackageCarriedFile& h : carried.headers) headers.push_back(&h);
    std::sort(headers.begin(), headers.end(), [](auto* a, auto* b) { return a->path < b->path; });
    for (std::size_t i = 0; i < headers.size(); ++i) {
      const std::string& path = headers[i]->path;
      if (!is_tree_path(path))
        return refused(where + ": header path '" + path + "' is not a relative path without '.' or '..' parts");
      if ((i > 0 && headers[i - 1]->path == path) || path == carried.source.path)
        return refused(where + ": path '" + path + "' is given twice");
      planned.entries.push_back({CarriedEntryKind::header, path, 0});
      hashes.push_back(text_of(headers[i]->text, where));
    }
    const std::pair<CarriedEntryKind, const std::vector<std::string>*> lists[] = {
        {CarriedEntryKind::include_dir, &carried.include_dirs},
        {CarriedEntryKind::option, &carried.options},
        {CarriedEntryKind::link_option, &carried.link_options},
        {CarriedEntryKind::kernel_template, &carried.kernel_templates}};
    for (const auto& [kind, values] : lists) {
      for (const std::string& value : *values) {
        if (value.empty()) return refused(where + ": an empty option, include directory or kernel name");
        if (kind == CarriedEntryKind::include_dir && value != "." && !is_tree_path(value))
          return refused(where + ": include directory '" + value +
                         "' is not '.' or a relative path without '.' or '..' parts");
        planned.entries.push_back({kind, value, 0});
      }
    }
    units.emplace_back(std::move(planned), std::move(hashes));
  }
  KILN_TRY(collided);
  for (const auto& [hash, text] : texts) plan.texts.push_back({hash, text});
  for (auto& [planned, hashes] : units) {
    for (std::size_t i = 0; i < hashes.size(); ++i) {
      const auto it = std::lower_bound(plan.texts.begin(), plan.texts.end(), hashes[i],
                                       [](const PlannedText& t, std::uint64_t h) { return t.content_hash < h; });
      planned.entries[i].text = static_cast<std::uint32_t>(it - plan.texts.begin());
    }
    plan.carried.push_back(std::move(planned));
  }
  std::sort(plan.carried.begin(), plan.carried.end(), [](const auto& a, const auto& b) { return a.unit < b.unit; });
  return {};
}

}  // namespace kiln::format::detail
