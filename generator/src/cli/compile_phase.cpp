#include "cli/compile_phase.hpp"

#include "compile/diagnostics.hpp"

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
                                        bool verbose, std::set<std::string> retried = {}) {
  Progress progress(verbose, std::move(retried));
  std::vector<compile::CompileOutput> outputs =
      runner.run(jobs, [&](std::size_t done, std::size_t total, const compile::CompileJob& job,
                           const compile::CompileOutput& out) { progress.finished(done, total, job, out); });
  progress.close();
  return outputs;
}

}  // namespace

bool nvrtc_cannot_compile(const std::string& log) {
  for (const std::string_view sign : {std::string_view("cannot open source file"), std::string_view("not allowed in JIT mode"),
                                     std::string_view("unrecognized option"), compile::k_nvrtc_stops_reading})
    if (log.find(sign) != std::string::npos) return true;
  return false;
}

std::optional<std::vector<compile::CompileOutput>> compile_plan(plan::BuildPlan& plan, compile::JobRunner& runner,
                                                                bool verbose) {
  std::set<std::string> retried;
  for (const plan::PlannedUnit& unit : plan.units)
    if (unit.compiler == compile::Compiler::nvrtc && unit.nvcc_fallback) retried.insert(unit.source);
  std::vector<compile::CompileOutput> outputs = run(runner, plan.jobs, verbose, std::move(retried));
  const std::vector<compile::CompileOutput> nvrtc_outputs = outputs;
  const std::size_t target_count = plan.targets.size();
  const std::vector<std::size_t> switched = plan::switch_rejected_units_to_nvcc(plan, outputs);
  if (!switched.empty()) {
    std::vector<compile::CompileJob> retry;
    for (const std::size_t u : switched)
      for (std::size_t t = 0; t < target_count; ++t) retry.push_back(plan.jobs[u * target_count + t]);
    const std::vector<compile::CompileOutput> nvcc_outputs = run(runner, retry, verbose);
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

  // Each distinct log once: a warning repeats for every target.
  std::set<std::string> printed;
  std::size_t failed = 0;
  for (const compile::CompileOutput& out : outputs) {
    if (!out.ok) ++failed;
    if (!out.log.empty() && printed.insert(out.log).second) std::cerr << out.log << "\n";
  }
  if (failed == 0) return outputs;
  std::cerr << "kiln: error: " << failed << " of " << plan.jobs.size() << " compiles failed; no package written\n";
  return std::nullopt;
}

}  // namespace kiln::cli
