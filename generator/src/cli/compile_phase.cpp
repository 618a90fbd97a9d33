#include "cli/compile_phase.hpp"

#include "compile/diagnostics.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <string_view>

namespace kiln::cli {

namespace {

std::string first_line_with(const std::string& log, std::string_view what) {
  const std::size_t at = log.find(what);
  if (at == std::string::npos) return log.substr(0, log.find('\n'));
  const std::size_t begin = log.rfind('\n', at);
  const std::size_t start = begin == std::string::npos ? 0 : begin + 1;
  return log.substr(start, log.find('\n', at) - start);
}

// Runs `jobs`, reporting progress; outputs in job order. Failures of `retried` sources are not final.
std::vector<compile::CompileOutput> run(compile::JobRunner& runner, const std::vector<compile::CompileJob>& jobs,
                                        Verbosity verbosity, std::set<std::string> retried = {}) {
  Progress progress(verbosity, std::move(retried));
  std::vector<compile::CompileOutput> outputs =
      runner.run(jobs, [&](std::size_t done, std::size_t total, const compile::CompileJob& job,
                           const compile::CompileOutput& out) { progress.finished(done, total, job, out); });
  progress.close();
  return outputs;
}

// One distinct log, and the compiles that gave it.
struct LogGroup {
  const std::string* log;
  std::string source;             // as the user sees it
  std::vector<std::string> targets;
  bool failed = false;
};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Prints each distinct log once (a warning repeats for every target); a failed one is followed by a
// note naming its targets. Returns the closing error, or "" when every compile succeeded.
std::string report_logs(const plan::BuildPlan& plan, const std::vector<compile::CompileOutput>& outputs,
                        Verbosity verbosity, std::vector<std::string>& warnings) {
  std::vector<LogGroup> groups;
  std::vector<std::pair<std::string, std::vector<std::string>>> failed_by_source;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const compile::CompileOutput& out = outputs[i];
    const compile::CompileJob& job = plan.jobs[i];
    const std::string source = job.display_prefix + job.source;
    if (!out.ok) {
      ++failed;
      if (failed_by_source.empty() || failed_by_source.back().first != source) failed_by_source.push_back({source, {}});
      failed_by_source.back().second.push_back(job.target);
    }
    if (out.log.empty()) continue;
    auto group = std::find_if(groups.begin(), groups.end(), [&](const LogGroup& g) { return *g.log == out.log; });
    if (group == groups.end()) group = groups.insert(groups.end(), LogGroup{&out.log, source, {}, false});
    group->targets.push_back(job.target);
    group->failed = group->failed || !out.ok;
  }
  for (const LogGroup& group : groups) {
    if (!group.failed) {
      warnings.push_back(*group.log);
      if (verbosity != Verbosity::quiet) std::cerr << *group.log << "\n";
      continue;
    }
    std::cerr << *group.log << "\n"
              << group.source << ": note: " << (group.targets.size() == 1 ? "target " : "targets ")
              << joined(group.targets) << "\n";
  }
  if (failed == 0) return "";
  std::string which;
  for (const auto& [source, targets] : failed_by_source)
    which += (which.empty() ? "" : "; ") + source + " for " + joined(targets);
  return std::to_string(failed) + " of " + std::to_string(plan.jobs.size()) + " compiles failed (" + which +
         "); no package written";
}

}  // namespace

bool nvrtc_cannot_compile(const std::string& log) {
  for (const std::string_view sign : {std::string_view("cannot open source file"), std::string_view("not allowed in JIT mode"),
                                     std::string_view("unrecognized option"), compile::k_nvrtc_stops_reading})
    if (log.find(sign) != std::string::npos) return true;
  return false;
}

std::optional<std::vector<compile::CompileOutput>> compile_plan(plan::BuildPlan& plan, compile::JobRunner& runner,
                                                                Verbosity verbosity, std::vector<std::string>& warnings) {
  const bool verbose = verbosity == Verbosity::verbose;
  std::set<std::string> retried;
  for (const plan::PlannedUnit& unit : plan.units)
    if (unit.compiler == compile::Compiler::nvrtc && unit.nvcc_fallback) retried.insert(unit.source);
  std::vector<compile::CompileOutput> outputs = run(runner, plan.jobs, verbosity, std::move(retried));
  const std::vector<compile::CompileOutput> nvrtc_outputs = outputs;
  const std::size_t target_count = plan.targets.size();
  const std::vector<std::size_t> switched = plan::switch_rejected_units_to_nvcc(plan, outputs);
  if (!switched.empty()) {
    std::vector<compile::CompileJob> retry;
    for (const std::size_t u : switched)
      for (std::size_t t = 0; t < target_count; ++t) retry.push_back(plan.jobs[u * target_count + t]);
    const std::vector<compile::CompileOutput> nvcc_outputs = run(runner, retry, verbosity);
    for (std::size_t i = 0; i < switched.size(); ++i) {
      const std::size_t u = switched[i];
      std::string nvrtc_log;
      for (std::size_t t = 0; t < target_count && nvrtc_log.empty(); ++t)
        if (!nvrtc_outputs[u * target_count + t].ok) nvrtc_log = nvrtc_outputs[u * target_count + t].log;
      const bool nvcc_stands = nvrtc_cannot_compile(nvrtc_log);
      bool nvcc_ok = true;
      for (std::size_t t = 0; t < target_count; ++t) {
        compile::CompileOutput out = nvcc_outputs[i * target_count + t];
        nvcc_ok = nvcc_ok && out.ok;
        // Both failed: NVRTC's errors stand unless NVRTC could not take the source at all.
        if (!out.ok && !nvcc_stands) out.log = nvrtc_outputs[u * target_count + t].log;
        outputs[u * target_count + t] = std::move(out);
      }
      const std::string source = plan.settings.display_prefix + plan.units[u].source;
      if (nvcc_ok && verbose)
        std::cerr << source << ": note: NVRTC cannot compile it (" << first_line_with(nvrtc_log, "error")
                  << "), so nvcc did\n";
      if (!nvcc_ok && nvcc_stands)
        std::cerr << source << ": note: NVRTC cannot compile it (" << first_line_with(nvrtc_log, "error")
                  << "), and nvcc, which compiled it instead, fails:\n";
    }
  }

  const std::string failure = report_logs(plan, outputs, verbosity, warnings);
  if (failure.empty()) return outputs;
  std::cerr << "kiln: error: " << failure << "\n";
  return std::nullopt;
}

}  // namespace kiln::cli
