#include "writer/write_plan.hpp"

#include "format/names.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

namespace kiln::format::detail {

Error refused(std::string message) { return fail(KILN_STATUS_INVALID_ARGUMENT, std::move(message)); }

namespace {

std::string quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::optional<std::uint32_t> find_unit(const WritePlan& plan, std::string_view source) {
  const auto it =
      std::lower_bound(plan.units.begin(), plan.units.end(), source,
                       [](const PackageUnit* u, std::string_view s) { return u->source < s; });
  if (it == plan.units.end() || (*it)->source != source) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(it - plan.units.begin());
}

// "X (a.cu) and Y (b.cu)", ordered by unit then name so the message does not depend on input order.
std::string pair_text(std::string_view first_name, std::string_view first_unit,
                      std::string_view second_name, std::string_view second_unit) {
  if (std::tie(second_unit, second_name) < std::tie(first_unit, first_name)) {
    std::swap(first_name, second_name);
    std::swap(first_unit, second_unit);
  }
  return std::string(first_name) + " (" + std::string(first_unit) + ") and " +
         std::string(second_name) + " (" + std::string(second_unit) + ")";
}

Status plan_targets(const PackageContents& contents, WritePlan& plan) {
  for (const std::string& text : contents.targets) {
    const std::optional<Target> target = parse_target(text);
    if (!target) {
      return refused(quoted(text) +
             " is not a target (expected sm_XY or compute_XY, optionally with a or f)");
    }
    plan.targets.push_back(*target);
  }
  std::sort(plan.targets.begin(), plan.targets.end());
  plan.targets.erase(std::unique(plan.targets.begin(), plan.targets.end()), plan.targets.end());
  return {};
}

Status plan_units(const PackageContents& contents, WritePlan& plan) {
  for (const PackageUnit& unit : contents.units) {
    plan.units.push_back(&unit);
  }
  std::sort(plan.units.begin(), plan.units.end(),
            [](const PackageUnit* a, const PackageUnit* b) { return a->source < b->source; });
  for (std::size_t i = 1; i < plan.units.size(); ++i) {
    if (plan.units[i]->source == plan.units[i - 1]->source) {
      return refused("unit " + quoted(plan.units[i]->source) + " is given twice");
    }
  }
  for (std::uint32_t u = 0; u < plan.units.size(); ++u) {
    const PackageUnit& unit = *plan.units[u];
    const std::size_t first = plan.images.size();
    for (const PackageImage& image : unit.images) {
      const std::optional<Target> target = parse_target(image.target);
      const auto it = target ? std::lower_bound(plan.targets.begin(), plan.targets.end(), *target)
                             : plan.targets.end();
      if (it == plan.targets.end() || *it != *target) {
        return refused("unit " + quoted(unit.source) + " has an image for target " + quoted(image.target) +
               ", which is not one of the package's targets");
      }
      if (it->kind == TargetKind::sass && image.ptx_version != 0) {
        return refused("unit " + quoted(unit.source) + " has a cubin for " + it->name() +
               " with a PTX version (" + std::to_string(image.ptx_version) +
               "); only PTX images have one");
      }
      plan.images.push_back({u, static_cast<std::uint32_t>(it - plan.targets.begin()), &image.bytes,
                             image.ptx_version});
    }
    const auto mine = plan.images.begin() + static_cast<std::ptrdiff_t>(first);
    std::sort(mine, plan.images.end(),
              [](const PlannedImage& a, const PlannedImage& b) { return a.target < b.target; });
    const auto twin = std::adjacent_find(
        mine, plan.images.end(), [](const auto& a, const auto& b) { return a.target == b.target; });
    if (twin != plan.images.end()) {
      return refused("unit " + quoted(unit.source) + " has two images for target " +
             plan.targets[twin->target].name());
    }
  }
  return {};
}

// A unit's sources: a variant names its one source; a link group's members are listed unless
// they are just the unit's name, which a unit without records already says.
Status plan_unit_sources(WritePlan& plan) {
  for (std::uint32_t u = 0; u < plan.units.size(); ++u) {
    const PackageUnit& unit = *plan.units[u];
    std::vector<std::string> sources = unit.sources;
    std::sort(sources.begin(), sources.end());
    const std::string what = "unit " + quoted(unit.source);
    if (unit.variant && sources.size() != 1) {
      return refused(what + " is a variant, of one source, but names " + std::to_string(sources.size()));
    }
    if (!sources.empty() && sources.front().empty()) {
      return refused(what + " names an empty source");
    }
    if (const auto twin = std::adjacent_find(sources.begin(), sources.end()); twin != sources.end()) {
      return refused(what + " names source " + quoted(*twin) + " twice");
    }
    if (!unit.variant && (sources.empty() || (sources.size() == 1 && sources.front() == unit.source))) {
      continue;
    }
    const UnitSourceRole role = unit.variant ? UnitSourceRole::variant_of : UnitSourceRole::link_member;
    for (std::string& source : sources) plan.unit_sources.push_back({u, role, std::move(source)});
  }
  return {};
}

// The variant flag goes with a "<variant>/<symbol>" lowered name, and only there (a reader takes
// the symbol after the '/' only when the flag says so).
Status check_variant_name(const PackageKernel& kernel) {
  const std::string what = "kernel " + kernel.lowered_name + " (" + kernel.unit_source + ")";
  if ((kernel.flags & k_kernel_variant) == 0) {
    if (kernel.lowered_name.find('/') == std::string::npos) return {};
    return refused(what + " has a '/' in its lowered name but is not flagged as a variant kernel");
  }
  if (split_variant_name(kernel.lowered_name)) return {};
  return refused(what + " is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'");
}

Status plan_kernels(const PackageContents& contents, WritePlan& plan) {
  for (const PackageKernel& kernel : contents.kernels) {
    if (kernel.lowered_name.empty()) {
      return refused("a kernel of unit " + quoted(kernel.unit_source) + " has an empty lowered name");
    }
    KILN_TRY(check_variant_name(kernel));
    const std::optional<std::uint32_t> unit = find_unit(plan, kernel.unit_source);
    if (!unit) {
      return refused("kernel " + kernel.lowered_name + " names unit " + quoted(kernel.unit_source) +
             ", which is not in the package");
    }
    plan.kernels.push_back({&kernel, *unit, {}});
  }
  std::sort(plan.kernels.begin(), plan.kernels.end(), [](const auto& a, const auto& b) {
    return a.kernel->lowered_name < b.kernel->lowered_name;
  });
  for (std::size_t i = 1; i < plan.kernels.size(); ++i) {
    const PackageKernel& a = *plan.kernels[i - 1].kernel;
    const PackageKernel& b = *plan.kernels[i].kernel;
    if (a.lowered_name == b.lowered_name) {
      const auto units = std::minmax(a.unit_source, b.unit_source);
      return refused("kernel " + a.lowered_name + " is given twice (" + units.first + " and " +
             units.second + ")");
    }
  }
  return {};
}

// Which images hold each kernel that not every image of its unit holds.
Status plan_kernel_targets(WritePlan& plan) {
  for (PlannedKernel& planned : plan.kernels) {
    const PackageKernel& kernel = *planned.kernel;
    if ((kernel.flags & k_kernel_in_other_file) != 0) {
      if (!kernel.targets.empty()) {
        return refused("kernel " + kernel.lowered_name + " (" + kernel.unit_source +
               ") is said to be in another file and in images of this one");
      }
      continue;
    }
    if (kernel.targets.empty()) {
      continue;
    }
    for (const std::string& text : kernel.targets) {
      const std::optional<Target> target = parse_target(text);
      const auto it = target ? std::lower_bound(plan.targets.begin(), plan.targets.end(), *target) : plan.targets.end();
      const auto index = static_cast<std::uint32_t>(it - plan.targets.begin());
      const bool imaged = it != plan.targets.end() && *it == *target &&
                          std::any_of(plan.images.begin(), plan.images.end(), [&](const PlannedImage& image) {
                            return image.unit == planned.unit && image.target == index;
                          });
      if (!imaged) {
        return refused("kernel " + kernel.lowered_name + " is said to be in the " + quoted(text) + " image of unit " +
               quoted(kernel.unit_source) + ", which has none");
      }
      planned.targets.push_back(index);
    }
    std::sort(planned.targets.begin(), planned.targets.end());
    planned.targets.erase(std::unique(planned.targets.begin(), planned.targets.end()), planned.targets.end());
  }
  return {};
}

// Every name a kernel answers to: its lowered and canonical names and its aliases, normalized.
Status plan_names(WritePlan& plan) {
  for (std::uint32_t k = 0; k < plan.kernels.size(); ++k) {
    const PackageKernel& kernel = *plan.kernels[k].kernel;
    std::vector<std::string_view> spellings = {kernel.lowered_name, kernel.canonical_name};
    spellings.insert(spellings.end(), kernel.names.begin(), kernel.names.end());
    for (const std::string_view spelling : spellings) {
      std::string name = normalize_name(spelling);
      if (name.empty()) {
        return refused("kernel " + kernel.lowered_name + " (" + kernel.unit_source + ") has an empty name");
      }
      plan.names.push_back({std::move(name), k});
    }
  }
  const auto key = [](const PlannedName& n) {
    return std::tie(n.name, n.kernel);
  };
  std::sort(plan.names.begin(), plan.names.end(),
            [&](const auto& a, const auto& b) { return key(a) < key(b); });
  plan.names.erase(std::unique(plan.names.begin(), plan.names.end(),
                               [&](const auto& a, const auto& b) { return key(a) == key(b); }),
                   plan.names.end());
  for (std::size_t i = 1; i < plan.names.size(); ++i) {
    if (plan.names[i].name == plan.names[i - 1].name) {
      const PackageKernel& a = *plan.kernels[plan.names[i - 1].kernel].kernel;
      const PackageKernel& b = *plan.kernels[plan.names[i].kernel].kernel;
      return refused("name " + quoted(plan.names[i].name) + " is claimed by kernels " +
             pair_text(a.lowered_name, a.unit_source, b.lowered_name, b.unit_source));
    }
  }
  return {};
}

Status plan_variables(const PackageContents& contents, WritePlan& plan) {
  for (const PackageVariable& variable : contents.variables) {
    std::string name = normalize_name(variable.name);
    const std::string what =
        "variable " + quoted(variable.name) + " (" + variable.unit_source + ")";
    if (name.empty()) {
      return refused("a variable of unit " + quoted(variable.unit_source) + " has an empty name");
    }
    if (variable.lowered_name.empty()) {
      return refused(what + " has an empty lowered name");
    }
    if (static_cast<std::uint32_t>(variable.kind) >
        static_cast<std::uint32_t>(VariableKind::managed)) {
      return refused(what + " has an unknown kind " +
             std::to_string(static_cast<std::uint32_t>(variable.kind)));
    }
    const std::optional<std::uint32_t> unit = find_unit(plan, variable.unit_source);
    if (!unit) {
      return refused("variable " + quoted(variable.name) + " names unit " + quoted(variable.unit_source) +
             ", which is not in the package");
    }
    plan.variables.push_back({std::move(name), &variable, *unit});
  }
  std::sort(plan.variables.begin(), plan.variables.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < plan.variables.size(); ++i) {
    const PlannedVariable& a = plan.variables[i - 1];
    const PlannedVariable& b = plan.variables[i];
    if (a.name == b.name) {
      return refused("variable name " + quoted(a.name) + " is given twice: " +
             pair_text(a.variable->lowered_name, a.variable->unit_source, b.variable->lowered_name,
                       b.variable->unit_source));
    }
  }
  return {};
}

// Sources and metadata may repeat an entry exactly (two units include one header); a key that
// comes back with a different value is a contradiction.
Status plan_sources_and_metadata(const PackageContents& contents, WritePlan& plan) {
  for (const PackageSource& source : contents.sources) {
    if (static_cast<std::uint32_t>(source.role) > static_cast<std::uint32_t>(SourceRole::toolkit_headers)) {
      return refused("source " + quoted(source.path) + " has an unknown role " +
             std::to_string(static_cast<std::uint32_t>(source.role)));
    }
    plan.sources.push_back(&source);
  }
  const auto source_key = [](const PackageSource* s) {
    return std::tie(s->path, s->role, s->content_hash);
  };
  std::sort(plan.sources.begin(), plan.sources.end(),
            [&](auto* a, auto* b) { return source_key(a) < source_key(b); });
  plan.sources.erase(std::unique(plan.sources.begin(), plan.sources.end(),
                                 [&](auto* a, auto* b) { return source_key(a) == source_key(b); }),
                     plan.sources.end());
  for (std::size_t i = 1; i < plan.sources.size(); ++i) {
    if (plan.sources[i]->path == plan.sources[i - 1]->path) {
      return refused("source " + quoted(plan.sources[i]->path) +
             " is given twice with different roles or content hashes");
    }
  }
  for (const MetadataEntry& entry : contents.metadata) {
    plan.metadata.push_back(&entry);
  }
  std::sort(plan.metadata.begin(), plan.metadata.end(), [](auto* a, auto* b) { return *a < *b; });
  plan.metadata.erase(std::unique(plan.metadata.begin(), plan.metadata.end(),
                                  [](auto* a, auto* b) { return *a == *b; }),
                      plan.metadata.end());
  for (std::size_t i = 1; i < plan.metadata.size(); ++i) {
    if (plan.metadata[i]->first == plan.metadata[i - 1]->first) {
      return refused("metadata key " + quoted(plan.metadata[i]->first) +
             " is given twice with different values");
    }
  }
  return {};
}

}  // namespace

Result<WritePlan> plan_package(const PackageContents& contents) {
  WritePlan plan;
  KILN_TRY(plan_targets(contents, plan));
  KILN_TRY(plan_units(contents, plan));
  KILN_TRY(plan_unit_sources(plan));
  KILN_TRY(plan_kernels(contents, plan));
  KILN_TRY(plan_kernel_targets(plan));
  KILN_TRY(plan_names(plan));
  KILN_TRY(plan_variables(contents, plan));
  KILN_TRY(plan_sources_and_metadata(contents, plan));
  KILN_TRY(plan_carried(contents, plan));
  // Records refer to each other by 32-bit index.
  std::uint64_t params = 0;
  std::uint64_t kernel_target_records = 0;
  for (const PlannedKernel& k : plan.kernels) {
    params += (k.kernel->flags & k_kernel_params_known) != 0 ? k.kernel->params.size() : 0;
    kernel_target_records += k.targets.size();
  }
  const std::uint64_t largest =
      std::max({std::uint64_t{plan.units.size()}, std::uint64_t{plan.images.size()},
                std::uint64_t{plan.names.size()}, std::uint64_t{plan.variables.size()},
                std::uint64_t{plan.sources.size()}, std::uint64_t{plan.metadata.size()}, params,
                kernel_target_records, std::uint64_t{plan.unit_sources.size()}, std::uint64_t{plan.texts.size()},
                [&] {
                  std::uint64_t entries = 0;
                  for (const PlannedCarriedUnit& c : plan.carried) entries += c.entries.size();
                  return entries;
                }()});
  if (largest > std::numeric_limits<std::uint32_t>::max()) {
    return refused("the package has more than 2^32 - 1 records in one table");
  }
  return plan;
}

}  // namespace kiln::format::detail
