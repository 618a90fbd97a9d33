#include "plan/image_parts.hpp"

#include "format/image_part_names.hpp"
#include "format/names.hpp"

#include <map>

namespace kiln::plan {

namespace {

// The names of one kernel: a request and the canonical spelling the scan resolved it to, or one name.
struct KernelNames {
  std::vector<PlannedName> names;
  bool in_source_text = false;
};

std::vector<KernelNames> group_by_kernel(const std::vector<PlannedName>& names) {
  std::vector<KernelNames> groups;
  std::map<std::string, std::size_t> index;   // normalized spelling -> group
  for (const PlannedName& name : names) {
    const std::string key = format::normalize_name(name.canonical.empty() ? name.expression : name.canonical);
    auto [it, added] = index.emplace(key, groups.size());
    if (added) groups.emplace_back();
    KernelNames& group = groups[it->second];
    group.names.push_back(name);
    group.in_source_text = group.in_source_text || name.in_source_text;
  }
  return groups;
}

std::size_t text_made(const std::vector<KernelNames>& groups) {
  std::size_t n = 0;
  for (const KernelNames& g : groups) n += g.in_source_text ? 1 : 0;
  return n;
}

// Why a unit of these kernel groups is built whole although it is over its bound; "" otherwise.
std::string why_whole(const PlannedUnit& unit, const std::vector<KernelNames>& groups) {
  if (unit.kernels_per_image == 0 || groups.size() <= unit.kernels_per_image) return {};
  if (!unit.members.empty()) return "a link group's kernels are linked together";
  if (unit.compiler == compile::Compiler::nvcc)
    return "nvcc compiles it (host code), and its host code makes every kernel it launches in every program";
  if (unit.scan_failed) return "its scan failed, so which kernels it holds is known only after compiling";
  if (!unit.variables.empty())
    return "it has __device__ or __constant__ variables, of which each part would hold a copy of its own";
  if (const std::size_t made = text_made(groups); made >= unit.kernels_per_image)
    return std::to_string(made) + " of its instantiations are made by its own text (explicit instantiations, "
           "launches, addresses taken), which every part would compile again";
  return {};
}

}  // namespace

std::string part_name(const std::string& unit, std::size_t part) { return format::image_part_name(unit, part); }

std::string why_whole(const PlannedUnit& unit) { return why_whole(unit, group_by_kernel(unit.kernels)); }

std::vector<PlannedUnit> split_into_parts(PlannedUnit unit) {
  std::vector<KernelNames> groups = group_by_kernel(unit.kernels);
  const bool over_bound = unit.kernels_per_image != 0 && groups.size() > unit.kernels_per_image;
  if (!over_bound || !why_whole(unit, groups).empty()) {
    std::vector<PlannedUnit> whole;
    whole.push_back(std::move(unit));
    return whole;
  }
  // The first part: every kernel the source's text makes (each program compiles them anyway; only
  // this one keeps them), then the first names up to the bound.
  std::vector<std::vector<PlannedName>> parts(1);
  std::size_t first_count = 0;
  for (KernelNames& g : groups) {
    if (!g.in_source_text) continue;
    parts[0].insert(parts[0].end(), g.names.begin(), g.names.end());
    ++first_count;
  }
  std::size_t in_last = first_count;
  for (KernelNames& g : groups) {
    if (g.in_source_text) continue;
    if (in_last == unit.kernels_per_image) {
      parts.emplace_back();
      in_last = 0;
    }
    parts.back().insert(parts.back().end(), g.names.begin(), g.names.end());
    ++in_last;
  }
  std::vector<PlannedUnit> units;
  for (std::size_t p = 0; p < parts.size(); ++p) {
    PlannedUnit part = unit;
    part.kernels = std::move(parts[p]);
    part.part = p;
    if (p > 0) {
      part.name = part_name(unit.name, p + 1);
      part.carry_sources = false;   // the first part carries the source for run-time compiles
    }
    units.push_back(std::move(part));
  }
  return units;
}

std::vector<std::string> describe_parts(const std::vector<PlannedUnit>& units) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> split;   // first part's name -> parts, kernels
  for (const PlannedUnit& unit : units) {
    if (unit.part == 0 && unit.kernels_per_image == 0) continue;
    const std::string first = unit.part == 0 ? unit.name : format::parse_image_part_name(unit.name).value().unit;
    auto& [parts, kernels] = split[first];
    parts += 1;
    kernels += group_by_kernel(unit.kernels).size();
  }
  std::vector<std::string> lines;
  for (const PlannedUnit& unit : units) {
    if (unit.part != 0 || !split.count(unit.name)) continue;
    const auto [parts, kernels] = split.at(unit.name);
    const std::string bound = std::to_string(unit.kernels_per_image);
    if (parts > 1) {
      lines.push_back("image parts: " + unit.name + ": " + std::to_string(kernels) + " kernels in " +
                      std::to_string(parts) + " parts of at most " + bound);
    } else if (const std::string why = why_whole(unit); !why.empty()) {
      lines.push_back("image parts: " + unit.name + ": " + std::to_string(kernels) + " kernels in one image (" +
                      "kernels_per_image " + bound + "): " + why);
    }
  }
  return lines;
}

}  // namespace kiln::plan
