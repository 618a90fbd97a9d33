#include "plan/build_plan.hpp"

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

}  // namespace

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
                            const PlanSettings& settings) {
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
  shared.insert(shared.end(), manifest.options.begin(), manifest.options.end());
  plan.package_options.insert(plan.package_options.end(), manifest.options.begin(), manifest.options.end());

  std::vector<const manifest::SourceEntry*> sources;
  for (const manifest::SourceEntry& s : manifest.sources) sources.push_back(&s);
  std::sort(sources.begin(), sources.end(), [](auto* a, auto* b) { return a->path < b->path; });

  std::size_t index = 0;
  for (const manifest::SourceEntry* source : sources) {
    plan.sources.push_back(source->path);
    std::vector<std::string> options = shared;
    for (const std::string& define : source->defines) options.push_back("-D" + define);
    options.insert(options.end(), source->options.begin(), source->options.end());
    std::vector<std::string> all_user_options = manifest.options;
    all_user_options.insert(all_user_options.end(), source->options.begin(), source->options.end());
    for (const std::string& target : plan.targets) {
      compile::CompileJob job;
      job.root = std::filesystem::absolute(manifest.root).lexically_normal();
      job.source = source->path;
      job.display_prefix = settings.display_prefix;
      job.manifest_location = settings.display_prefix + manifest.path.filename().string() + ":" +
                              std::to_string(source->line);
      job.target = target;
      job.name_expressions = source->instantiations;
      job.variables = source->variables;
      job.nvrtc_options = options;
      job.link_options = link_options_for(all_user_options);
      job.trace_file = settings.scratch_dir / ("trace-" + std::to_string(index++));
      plan.jobs.push_back(std::move(job));
    }
  }
  return plan;
}

}  // namespace kiln::plan
