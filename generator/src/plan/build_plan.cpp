#include "plan/build_plan.hpp"

#include "compile/nvcc_compiler.hpp"

#include "format/names.hpp"
#include "options/compiler_options.hpp"
#include "plan/discovery.hpp"
#include "plan/image_parts.hpp"
#include "plan/listed_names.hpp"
#include "util/diagnostic.hpp"
#include "format/target.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace kiln::plan {

namespace {

// Adds `name` unless the list spells it already (whitespace aside); returns the entry either way.
PlannedName& add_unique(std::vector<PlannedName>& names, PlannedName name) {
  const std::string key = format::normalize_name(name.expression);
  for (PlannedName& n : names)
    if (format::normalize_name(n.expression) == key) return n;
  return names.emplace_back(std::move(name));
}

// Two requests that differ only in how they spell an unnamed namespace are one name to compile and
// two to record.
void merge_written(PlannedName& kept, const PlannedName& other) {
  if (&kept == &other) return;
  for (const std::string& w : other.written)
    if (std::find(kept.written.begin(), kept.written.end(), w) == kept.written.end()) kept.written.push_back(w);
}

// What the options say about the compiler: one NVRTC lacks (--extended-lambda) sends the unit to
// nvcc; one nvcc lacks (-default-device) keeps it with NVRTC, without the fallback. Both at once, or
// the second with host code, cannot compile.
Status route_by_options(const options::CompilerOptions& options, PlannedUnit& unit) {
  if (!options.needs_nvcc.empty() && !options.forbids_nvcc.empty())
    return Error{"option '" + options.needs_nvcc + "' is nvcc's alone and '" + options.forbids_nvcc +
                 "' NVRTC's alone: no compiler takes both"};
  if (!options.forbids_nvcc.empty()) {
    if (unit.compiler == compile::Compiler::nvcc)
      return Error{"this source has host code, so nvcc compiles it, and option '" + options.forbids_nvcc +
                   "' is NVRTC's alone"};
    unit.nvcc_fallback = false;
    unit.jit_safe_headers = true;
  }
  if (!options.needs_nvcc.empty()) unit.compiler = compile::Compiler::nvcc;
  return Ok{};
}

// The manifest's names first, in its order, then what scanning found.
PlannedUnit unit_for(const manifest::Manifest& manifest, const manifest::SourceEntry& source,
                     const Discovery& discovery) {
  PlannedUnit unit;
  unit.source = source.path;
  unit.name = source.variant.empty() ? source.path : source.variant;
  unit.variant = source.variant;
  unit.manifest_line = source.line;
  unit.manifest_column = source.column;
  const manifest::Position entry{source.line, source.column};
  for (std::size_t i = 0; i < source.instantiations.size(); ++i) {
    // Errors about an expression point at its own `instantiate` entry (or template pattern), or at
    // the kiln_add_cache() call that listed it.
    const manifest::Position at = i < source.instantiation_positions.size() ? source.instantiation_positions[i] : entry;
    add_unique(unit.kernels, {.expression = source.instantiations[i],
                              .origin = NameOrigin::manifest,
                              .where = listed_origin(manifest, NameList::source_instantiate, &source,
                                                     source.instantiations[i], at)});
  }
  for (std::size_t i = 0; i < source.variables.size(); ++i) {
    const manifest::Position at = i < source.variable_positions.size() ? source.variable_positions[i] : entry;
    add_unique(unit.variables, {.expression = source.variables[i],
                                .origin = NameOrigin::manifest,
                                .where = listed_origin(manifest, NameList::source_variables, &source,
                                                       source.variables[i], at)});
  }
  const auto found = discovery.sources.find(source.path);
  unit.nvcc_fallback = true;
  if (found == discovery.sources.end()) return unit;
  // The manifest's top-level names this source defines (discovery.hpp), before what the scan found.
  for (const PlannedName& k : found->second.package_kernels) add_unique(unit.kernels, k);
  for (const PlannedName& v : found->second.package_variables) add_unique(unit.variables, v);
  const bool remove_unused_variables = manifest.remove_unused_variables;
  unit.scan_failed = found->second.scan_failed;
  unit.image_only = found->second.image_only;
  unit.kernel_names = found->second.kernel_names;
  if (found->second.has_host_code) unit.compiler = compile::Compiler::nvcc;
  unit.keep_every_variable = unit.image_only && unit.compiler == compile::Compiler::nvrtc && !remove_unused_variables;
  for (const PlannedName& k : found->second.kernels) {
    PlannedName& kept = add_unique(unit.kernels, k);
    if (kept.symbol_form.empty()) kept.symbol_form = k.symbol_form;   // a manifest entry the scan also found
    if (kept.mangled_name.empty()) kept.mangled_name = k.mangled_name;
    kept.in_source_text = kept.in_source_text || k.in_source_text;
    merge_written(kept, k);
  }
  for (const PlannedName& v : found->second.variables) {
    // Seen declared, not asked for: nvJitLink drops it unless a kernel uses it.
    if (remove_unused_variables && v.origin == NameOrigin::discovered) continue;
    // A variable the manifest lists is still __managed__ if the scanner says so.
    PlannedName& kept = add_unique(unit.variables, v);
    kept.managed = kept.managed || v.managed;
    kept.internal_linkage = kept.internal_linkage || v.internal_linkage;
    if (kept.symbol.empty()) kept.symbol = v.symbol;
    merge_written(kept, v);
  }
  return unit;
}

// libcu++ and the rest of CCCL, which the toolkit's include directory holds apart.
constexpr const char* k_cccl = "<cuda>/include/cccl";

// The package's own link group, which every source compiled with -rdc=true joins.
constexpr std::string_view k_package_link_group = "rdc";

// PTX for compute_XYf comes from NVRTC unlinked (nvrtc_compiler.cpp): it cannot hold a link group.
Status check_group_targets(const std::vector<format::Target>& targets, const std::string& group) {
  for (const format::Target& t : targets)
    if (t.kind == format::TargetKind::ptx && t.variant == format::TargetVariant::family)
      return Error{"link group '" + group + "' cannot be built for " + t.name() +
                   ": family PTX comes from NVRTC unlinked, and a link group needs nvJitLink; list compute_XY "
                   "or sm_XYf instead"};
  return Ok{};
}

// One unit for the group: its members' names together (a kernel of any member is the group's), no
// fallback of its own (each member falls back to nvcc inside the group's compile).
Status add_link_group(BuildPlan& plan, const std::string& name, PlannedUnit group) {
  for (const PlannedUnit& unit : plan.units)
    if (unit.name == name)
      return Error("link group '" + name + "' has the name of a source or variant; units need names of their own "
                   "(set 'link_group' to another name)",
                   place(plan.manifest_file, unit.manifest_line, unit.manifest_column));
  std::sort(group.members.begin(), group.members.end(),
            [](const PlannedUnit& a, const PlannedUnit& b) { return a.source < b.source; });
  group.name = name;
  group.source.clear();
  group.compiler = compile::Compiler::nvrtc;
  group.nvcc_fallback = false;
  group.manifest_line = group.members.front().manifest_line;
  group.manifest_column = group.members.front().manifest_column;
  for (PlannedUnit& member : group.members) {
    group.scan_failed = group.scan_failed || member.scan_failed;
    group.carry_sources = group.carry_sources || member.carry_sources;
    for (const PlannedName& k : member.kernels) add_unique(group.kernels, k);
    for (const PlannedName& v : member.variables) add_unique(group.variables, v);
    group.kernel_names.insert(group.kernel_names.end(), member.kernel_names.begin(), member.kernel_names.end());
    group.ptxas_verbose = group.ptxas_verbose || member.ptxas_verbose;
    for (const std::string& o : member.link_options)
      if (std::find(group.link_options.begin(), group.link_options.end(), o) == group.link_options.end())
        group.link_options.push_back(o);
  }
  plan.units.push_back(std::move(group));
  return Ok{};
}

// Each unit, or its image parts where it asks for more kernels than its bound. A unit stays whole
// where a part's name is taken (a source file named "ops.cu#2" beside ops.cu).
std::vector<PlannedUnit> with_image_parts(std::vector<PlannedUnit> units) {
  std::set<std::string> taken;
  for (const PlannedUnit& unit : units) taken.insert(unit.name);
  std::vector<PlannedUnit> out;
  for (PlannedUnit& unit : units) {
    std::vector<PlannedUnit> parts = split_into_parts(unit);
    const bool clash = std::any_of(parts.begin() + 1, parts.end(), [&](const PlannedUnit& p) { return taken.count(p.name) > 0; });
    if (clash) {
      out.push_back(std::move(unit));
      continue;
    }
    for (PlannedUnit& part : parts) out.push_back(std::move(part));
  }
  return out;
}

// -I and -D as the compilers see them (nvcc and NVRTC share these as is): the manifest's include
// directories, then the source's own (searched after them, before the toolkit's), then the manifest's
// macros. `plan.include_dirs` holds the manifest's and then the toolkit's.
std::vector<std::string> include_and_define_options(const BuildPlan& plan, const manifest::Manifest& manifest,
                                                    const manifest::SourceEntry& source) {
  std::vector<std::string> dirs = manifest.include_dirs;
  dirs.insert(dirs.end(), source.include_dirs.begin(), source.include_dirs.end());
  dirs.insert(dirs.end(), plan.include_dirs.begin() + static_cast<std::ptrdiff_t>(manifest.include_dirs.size()),
              plan.include_dirs.end());
  std::vector<std::string> options;
  for (const std::string& dir : dirs) options.push_back("-I" + plan.roots.expand(dir).string());
  for (const std::string& define : manifest.defines) options.push_back("-D" + define);
  return options;
}

}  // namespace

Result<BuildPlan> make_plan(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                            const PlanSettings& settings, const Discovery& discovery) {
  BuildPlan plan;
  std::vector<format::Target> targets;
  const std::vector<std::string> names = manifest.targets.empty() ? toolkit.default_targets() : manifest.targets;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    // Where the target was asked for: its element of 'targets', else --targets or the default.
    const auto located = [&](const std::string& message) {
      if (!manifest.targets.empty() && i < manifest.target_positions.size())
        return Error(message, place(manifest.path.string(), manifest.target_positions[i].line,
                                    manifest.target_positions[i].column));
      return Error{"target '" + name + "' (from " + (manifest.targets.empty() ? "the default targets" : "--targets") +
                   "): " + message};
    };
    const std::optional<format::Target> t = format::parse_target(name);
    if (!t) return located("unknown target '" + name + "'");
    if (!toolkit.supports(t->arch))
      return located(toolkit.unsupported_target(name));
    targets.push_back(*t);
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  for (const format::Target& t : targets) plan.targets.push_back(t.name());
  plan.root = std::filesystem::absolute(manifest.root).lexically_normal();
  plan.nvcc = toolkit.root / "bin" / "nvcc";
  // lib64/, else where a toolkit without the lib64 link has it, else lib/ (NVIDIA's wheels).
  for (const char* directory : {"lib64", "targets/x86_64-linux/lib", "lib"}) {
    plan.device_runtime = toolkit.root / directory / "libcudadevrt.a";
    if (std::error_code ec; std::filesystem::exists(plan.device_runtime, ec)) break;
  }
  // Relative to the root when it is inside (the usual kiln.toml), else absolute (a manifest that
  // kiln_add_cache generated into the build tree, built with --root <source dir>).
  plan.manifest_file = manifest_file_of(manifest);
  plan.settings = settings;

  plan.roots = {plan.root, settings.build_dir, settings.kiln_include_dir, toolkit.root};
  plan.include_dirs = manifest.include_dirs;
  if (manifest.toolkit_includes) {
    plan.include_dirs.push_back(k_cccl);
    plan.include_dirs.push_back("<cuda>/include");
  }
  for (const std::string& dir : plan.include_dirs) plan.package_options.push_back("-I" + dir);
  for (const std::string& define : manifest.defines) plan.package_options.push_back("-D" + define);
  plan.package_options.insert(plan.package_options.end(), manifest.options.begin(), manifest.options.end());

  std::map<std::string, PlannedUnit> groups;   // link groups by name, filled with their members
  for (const manifest::SourceEntry& entry : manifest.sources) {
    const manifest::SourceEntry* source = &entry;
    PlannedUnit unit = unit_for(manifest, *source, discovery);
    unit.carry_sources = source->carry_sources.value_or(manifest.carry_sources);
    unit.kernels_per_image = source->kernels_per_image.value_or(manifest.kernels_per_image);
    // The manifest's options, the source's macros, the source's options, in order, for each compiler.
    std::vector<std::string> user_options = manifest.options;
    for (const std::string& define : source->defines) user_options.push_back("-D" + define);
    user_options.insert(user_options.end(), source->options.begin(), source->options.end());
    // Errors about a source's options point at its [[source]] entry, as the manifest's own do.
    const auto at_entry = [&](const std::string& message) {
      return Error("source '" + source->path + "': " + message,
                   place(manifest.path.string(), source->line, source->column));
    };
    Result<options::CompilerOptions> translated = options::interpret(user_options);
    if (!translated) return at_entry(translated.error().message);
    const std::vector<std::string> paths_and_macros = include_and_define_options(plan, manifest, *source);
    unit.nvrtc_options = paths_and_macros;
    unit.nvrtc_options.insert(unit.nvrtc_options.end(), translated->nvrtc.begin(), translated->nvrtc.end());
    unit.nvcc_options = paths_and_macros;
    unit.nvcc_options.insert(unit.nvcc_options.end(), translated->nvcc.begin(), translated->nvcc.end());
    unit.link_options = translated->link;
    unit.ptxas_verbose = translated->ptxas_verbose;
    if (Status s = route_by_options(*translated, unit); !s) return at_entry(s.error().message);
    // The JIT-safe headers include libcu++'s, which 'toolkit_includes = false' leaves off the path.
    const bool has_cccl = std::find(plan.include_dirs.begin(), plan.include_dirs.end(), k_cccl) != plan.include_dirs.end();
    if (unit.jit_safe_headers && !has_cccl) unit.nvrtc_options.push_back("-I" + toolkit.expand(k_cccl).string());
    const std::string group = !source->link_group.empty() ? source->link_group
                              : translated->relocatable   ? std::string(k_package_link_group)
                                                          : std::string();
    if (group.empty()) {
      plan.units.push_back(std::move(unit));
      continue;
    }
    if (!source->variant.empty())
      return at_entry("variant '" + source->variant + "' cannot be compiled with -rdc=true: a variant is a unit "
                      "of its own, and a link group is one unit made of several sources");
    if (Status s = check_group_targets(targets, group); !s) return at_entry(s.error().message);
    groups[group].members.push_back(std::move(unit));
  }
  for (auto& [name, group] : groups) {
    if (Status s = add_link_group(plan, name, std::move(group)); !s) return s.error();
  }
  plan.units = with_image_parts(std::move(plan.units));
  std::sort(plan.units.begin(), plan.units.end(), [](const PlannedUnit& a, const PlannedUnit& b) { return a.name < b.name; });
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    plan.sources.push_back(plan.units[u].name);
    for (compile::CompileJob& job : make_jobs(plan, u)) plan.jobs.push_back(std::move(job));
  }
  return plan;
}

namespace {

// What NVRTC's JIT-safe headers give device code (constexpr functions of the standard library are
// __host__ __device__ in libcu++), for nvcc: a device-only source NVRTC rejects gets it.
constexpr const char* k_relaxed_constexpr = "--expt-relaxed-constexpr";

// Unit `unit`'s job for target `t`; `tag` makes its scratch names unique.
compile::CompileJob job_for(const BuildPlan& plan, const PlannedUnit& unit, std::size_t t, const std::string& tag) {
  compile::CompileJob job;
  job.root = plan.root;
  // A link group is no file: messages and progress name it as "link group 'rdc'".
  job.source = unit.members.empty() ? unit.source : "link group '" + unit.name + "'";
  job.unit = unit.name;
  job.display_prefix = unit.members.empty() ? plan.settings.display_prefix : std::string();
  job.manifest_entry =
      place((plan.manifest_file.starts_with('/') ? "" : plan.settings.display_prefix) + plan.manifest_file, unit.manifest_line);
  job.manifest_file = plan.manifest_file;
  job.target = plan.targets[t];
  job.link_options = unit.link_options;
  job.ptxas_verbose = unit.ptxas_verbose;
  job.known_kernels = unit.kernel_names;
  job.trace_file = plan.settings.scratch_dir / ("trace-" + tag);
  job.compiler = unit.compiler;
  if (!unit.members.empty()) {
    // A link group: each member compiles to LTO-IR, then one link; the names live in the members.
    job.device_runtime = plan.device_runtime;
    for (std::size_t m = 0; m < unit.members.size(); ++m) {
      compile::CompileJob member = job_for(plan, unit.members[m], t, tag + "-" + std::to_string(m));
      member.relocatable = true;
      job.trim_variables = job.trim_variables && member.trim_variables;
      job.members.push_back(std::move(member));
    }
    return job;
  }
  for (const PlannedName& k : unit.kernels) {
    job.name_expressions.push_back(k.expression);
    job.expression_origins.push_back(k.where);
  }
  for (const PlannedName& v : unit.variables) {
    if (!v.managed) job.variables.push_back(v.expression);
    else if (!v.symbol.empty()) job.keep_symbols.push_back(v.symbol);
  }
  job.nvrtc_options = unit.nvrtc_options;
  if (unit.keep_every_variable) job.trim_variables = false;
  if (unit.jit_safe_headers) job.jit_safe_dir = plan.settings.scratch_dir / "jit-safe-headers";
  job.link_named_kernels_only = unit.part > 0;
  job.nvcc_fallback = unit.compiler == compile::Compiler::nvrtc && unit.nvcc_fallback;
  // nvcc compiles it, or may when NVRTC rejects it inside a link group (compile_group does that).
  if (unit.compiler == compile::Compiler::nvcc || job.nvcc_fallback) {
    job.nvcc = plan.nvcc;
    job.nvcc_options = unit.nvcc_options;
    // A source written for NVRTC, which nvcc compiles only because NVRTC cannot (planned_unit.hpp).
    const bool relaxed = std::find(job.nvcc_options.begin(), job.nvcc_options.end(), k_relaxed_constexpr) != job.nvcc_options.end();
    if ((job.nvcc_fallback || unit.nvrtc_rejected) && !relaxed) job.nvcc_options.push_back(k_relaxed_constexpr);
    job.work_dir = plan.settings.scratch_dir / ("nvcc-" + tag);
  }
  if (unit.compiler == compile::Compiler::nvcc) {
    // nvcc names no variable for Kiln: every one the host may ask for is kept by its symbol, and
    // where one is unknown (internal linkage, or a scan that failed), every variable is kept.
    job.keep_symbols.clear();
    job.trim_variables = !unit.scan_failed;
    for (const PlannedName& v : unit.variables) {
      const std::string symbol = v.internal_linkage ? "" : v.symbol.empty() ? variable_symbol(v.expression) : v.symbol;
      if (symbol.empty()) job.trim_variables = false;
      else job.keep_symbols.push_back(symbol);
    }
  }
  return job;
}

}  // namespace

// A job nvcc compiles straight to its image (nvcc_compiler.hpp) is given only what changes the image:
// nvcc builds every instantiation the source's own text makes, and keeps its variables as it
// compiles them. So the scan's findings in the text never change the job, its key or its image.
void keep_what_the_image_needs(compile::CompileJob& job, const PlannedUnit& unit) {
  if (!compile::compiles_directly(job)) return;
  job.name_expressions.clear();
  job.expression_origins.clear();
  for (const PlannedName& k : unit.kernels) {
    if (k.in_source_text) continue;
    job.name_expressions.push_back(k.expression);
    job.expression_origins.push_back(k.where);
  }
  job.variables.clear();
  job.keep_symbols.clear();
  job.trim_variables = true;
}

std::vector<compile::CompileJob> make_jobs(const BuildPlan& plan, std::size_t unit_index) {
  std::vector<compile::CompileJob> jobs;
  for (std::size_t t = 0; t < plan.targets.size(); ++t) {
    jobs.push_back(job_for(plan, plan.units[unit_index], t, std::to_string(unit_index * plan.targets.size() + t)));
    keep_what_the_image_needs(jobs.back(), plan.units[unit_index]);
  }
  return jobs;
}

void switch_unit_to_nvcc(BuildPlan& plan, std::size_t u) {
  const std::size_t target_count = plan.targets.size();
  PlannedUnit& unit = plan.units[u];
  unit.compiler = compile::Compiler::nvcc;
  unit.nvrtc_rejected = true;
  std::vector<compile::CompileJob> jobs = make_jobs(plan, u);
  for (std::size_t t = 0; t < target_count; ++t) plan.jobs[u * target_count + t] = std::move(jobs[t]);
}

}  // namespace kiln::plan
