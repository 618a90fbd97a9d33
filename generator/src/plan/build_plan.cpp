#include "plan/build_plan.hpp"

#include "format/names.hpp"
#include "format/target.hpp"

#include <algorithm>

namespace kiln::plan {

namespace {

// "--ftz=true" and "-ftz=true" are the same option to NVRTC.
std::string strip_dashes(const std::string& option) {
  std::size_t i = 0;
  while (i < option.size() && i < 2 && option[i] == '-') ++i;
  return option.substr(i);
}

std::string value_after(const std::string& option, std::string_view name) {
  return option.substr(name.size() + 1);  // name + '='
}

std::string join_archs(const std::vector<int>& archs) {
  std::string out;
  for (int a : archs) out += (out.empty() ? "" : " ") + std::to_string(a);
  return out;
}

// Adds `name` unless the list spells it already (whitespace aside); returns the entry either way.
PlannedName& add_unique(std::vector<PlannedName>& names, PlannedName name) {
  const std::string key = format::normalize_name(name.expression);
  for (PlannedName& n : names)
    if (format::normalize_name(n.expression) == key) return n;
  return names.emplace_back(std::move(name));
}

// The manifest's names first, in its order, then what scanning found.
PlannedUnit unit_for(const manifest::SourceEntry& source, const std::string& manifest_file,
                     const Discovery& discovery) {
  PlannedUnit unit;
  unit.source = source.path;
  unit.manifest_line = source.line;
  const compile::Origin entry{manifest_file, source.line};
  for (const std::string& e : source.instantiations) add_unique(unit.kernels, {e, NameOrigin::manifest, entry, "", false, ""});
  for (const std::string& v : source.variables) add_unique(unit.variables, {v, NameOrigin::manifest, entry, "", false, ""});
  const auto found = discovery.sources.find(source.path);
  if (found == discovery.sources.end()) return unit;
  if (found->second.has_host_code) unit.compiler = compile::Compiler::nvcc;
  for (const PlannedName& k : found->second.kernels) add_unique(unit.kernels, k);
  for (const PlannedName& v : found->second.variables) {
    // A variable the manifest lists is still __managed__ if the scanner says so.
    PlannedName& kept = add_unique(unit.variables, v);
    kept.managed = kept.managed || v.managed;
    if (kept.symbol.empty()) kept.symbol = v.symbol;
  }
  return unit;
}

}  // namespace

std::vector<std::string> nvcc_options_for(const std::vector<std::string>& nvrtc_options,
                                          std::vector<std::string>& dropped) {
  std::vector<std::string> nvcc;
  for (const std::string& option : nvrtc_options) {
    const std::string o = strip_dashes(option);
    if (o == "use_fast_math" || o == "G" || o == "device-debug") {
      nvcc.push_back("-" + (o == "device-debug" ? std::string("G") : o));
    } else if (o == "lineinfo" || o == "generate-line-info") {
      nvcc.push_back("-lineinfo");
    } else if (o.rfind("std=", 0) == 0 || o.rfind("ftz=", 0) == 0 || o.rfind("prec-div=", 0) == 0 ||
               o.rfind("prec-sqrt=", 0) == 0 || o.rfind("fmad=", 0) == 0 || o.rfind("maxrregcount=", 0) == 0) {
      nvcc.push_back("-" + o);
    } else {
      dropped.push_back(option);
    }
  }
  return nvcc;
}

std::vector<std::string> link_options_for(const std::vector<std::string>& nvrtc_options) {
  std::vector<std::string> link;
  for (const std::string& option : nvrtc_options) {
    const std::string o = strip_dashes(option);
    if (o == "lineinfo" || o == "generate-line-info") {
      link.push_back("-lineinfo");
    } else if (o == "G" || o == "device-debug") {
      link.push_back("-g");
    } else if (o == "use_fast_math") {
      link.insert(link.end(), {"-ftz=true", "-prec-div=false", "-prec-sqrt=false"});
    } else if (o.rfind("ftz=", 0) == 0 || o.rfind("prec-div=", 0) == 0 || o.rfind("prec-sqrt=", 0) == 0) {
      link.push_back("-" + o);
    } else if (o.rfind("fmad=", 0) == 0) {
      link.push_back("-fma=" + value_after(o, "fmad"));
    } else if (o.rfind("maxrregcount=", 0) == 0) {
      link.push_back("-" + o);
    }
  }
  return link;
}

Result<BuildPlan> make_plan(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                            const PlanSettings& settings, const Discovery& discovery) {
  BuildPlan plan;
  std::vector<format::Target> targets;
  for (const std::string& name : manifest.targets.empty() ? toolkit.default_targets() : manifest.targets) {
    const std::optional<format::Target> t = format::parse_target(name);
    if (!t) return Error{manifest.path.string() + ": unknown target '" + name + "'"};
    if (!toolkit.supports(t->arch))
      return Error{manifest.path.string() + ": target '" + name + "' is not supported by NVRTC " +
                   toolkit.nvrtc_version() + " (it supports " + join_archs(toolkit.supported_archs) + ")"};
    targets.push_back(*t);
  }
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  for (const format::Target& t : targets) plan.targets.push_back(t.name());

  plan.include_dirs = manifest.include_dirs;
  if (manifest.toolkit_includes) {
    plan.include_dirs.push_back("<cuda>/include/cccl");
    plan.include_dirs.push_back("<cuda>/include");
  }
  std::vector<std::string> shared;  // as the compiler sees them
  for (const std::string& dir : plan.include_dirs) {
    shared.push_back("-I" + toolkit.expand(dir).string());
    plan.package_options.push_back("-I" + dir);
  }
  for (const std::string& define : manifest.defines) {
    shared.push_back("-D" + define);
    plan.package_options.push_back("-D" + define);
  }
  const std::vector<std::string> paths_and_macros = shared;  // what nvcc shares with NVRTC as is
  shared.insert(shared.end(), manifest.options.begin(), manifest.options.end());
  plan.package_options.insert(plan.package_options.end(), manifest.options.begin(), manifest.options.end());

  std::vector<const manifest::SourceEntry*> sources;
  for (const manifest::SourceEntry& s : manifest.sources) sources.push_back(&s);
  std::sort(sources.begin(), sources.end(), [](auto* a, auto* b) { return a->path < b->path; });

  std::size_t index = 0;
  const std::string manifest_file = manifest.path.filename().string();
  for (const manifest::SourceEntry* source : sources) {
    plan.sources.push_back(source->path);
    const PlannedUnit& unit = plan.units.emplace_back(unit_for(*source, manifest_file, discovery));
    std::vector<std::string> options = shared;
    for (const std::string& define : source->defines) options.push_back("-D" + define);
    options.insert(options.end(), source->options.begin(), source->options.end());
    std::vector<std::string> all_user_options = manifest.options;
    all_user_options.insert(all_user_options.end(), source->options.begin(), source->options.end());
    std::vector<std::string> nvcc_options = paths_and_macros;
    if (unit.compiler == compile::Compiler::nvcc) {
      for (const std::string& define : source->defines) nvcc_options.push_back("-D" + define);
      std::vector<std::string> dropped;
      for (std::string& o : nvcc_options_for(all_user_options, dropped)) nvcc_options.push_back(std::move(o));
      for (const std::string& o : dropped)
        plan.warnings.push_back(settings.display_prefix + source->path + ": warning: option '" + o +
                                "' is NVRTC's alone; nvcc compiles this source (it has host code) without it");
    }
    for (const std::string& target : plan.targets) {
      compile::CompileJob job;
      job.root = std::filesystem::absolute(manifest.root).lexically_normal();
      job.source = source->path;
      job.display_prefix = settings.display_prefix;
      job.manifest_location = settings.display_prefix + manifest.path.filename().string() + ":" +
                              std::to_string(source->line);
      job.target = target;
      for (const PlannedName& k : unit.kernels) {
        job.name_expressions.push_back(k.expression);
        job.expression_origins.push_back(k.where);
      }
      // nvcc's whole-program cubins keep every variable; NVRTC's trimmed ones only those named.
      for (const PlannedName& v : unit.variables) {
        if (!v.managed) job.variables.push_back(v.expression);
        else if (!v.symbol.empty()) job.keep_symbols.push_back(v.symbol);
      }
      job.nvrtc_options = options;
      job.link_options = link_options_for(all_user_options);
      job.trace_file = settings.scratch_dir / ("trace-" + std::to_string(index));
      job.compiler = unit.compiler;
      if (unit.compiler == compile::Compiler::nvcc) {
        job.nvcc = toolkit.root / "bin" / "nvcc";
        job.nvcc_options = nvcc_options;
        job.work_dir = settings.scratch_dir / ("nvcc-" + std::to_string(index));
      }
      ++index;
      plan.jobs.push_back(std::move(job));
    }
  }
  return plan;
}

}  // namespace kiln::plan
