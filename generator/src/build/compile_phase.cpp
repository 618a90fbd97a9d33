#include "build/compile_phase.hpp"

#include "compile/diagnostics.hpp"
#include "compile/ptxas_report.hpp"
#include "compile/wheel_toolkit.hpp"
#include "plan/nvrtc_reach.hpp"
#include "util/diagnostic.hpp"

#include <algorithm>
#include <set>
#include <string_view>

namespace kiln::build {

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
                                        BuildEvents& events, const std::set<std::string>& retried) {
  std::vector<compile::CompileOutput> outputs =
      runner.run(jobs, [&](std::size_t done, std::size_t total, const compile::CompileJob& job,
                           const compile::CompileOutput& out) {
        events.compiled(done, total, job, out, !out.ok && retried.count(job.source) != 0);
      });
  events.steps_done();
  return outputs;
}

// One distinct log, and the compiles that gave it.
struct LogGroup {
  std::string log;
  std::string source;             // as the user sees it
  std::vector<std::string> targets;
  bool failed = false;
};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Says each distinct log once (a warning repeats for every target); a failed one is followed by a
// note naming its targets. Fails with the closing error when any compile failed.
Status report_logs(const plan::BuildPlan& plan, const std::vector<compile::CompileOutput>& outputs,
                   BuildEvents& events) {
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
    // ptxas's -v report is said once, as kiln build's notes (cli/resource_notes.hpp): its info lines
    // are not printed as the compiler's warnings too.
    std::string log = compile::without_ptxas_info(out.log);
    if (log.empty()) continue;
    auto group = std::find_if(groups.begin(), groups.end(), [&](const LogGroup& g) { return g.log == log; });
    if (group == groups.end()) group = groups.insert(groups.end(), LogGroup{std::move(log), source, {}, false});
    group->targets.push_back(job.target);
    group->failed = group->failed || !out.ok;
  }
  for (const LogGroup& group : groups) {
    if (!group.failed) {
      events.warning(WarningSource::compiler, group.log);
      continue;
    }
    events.error(group.log + "\n" +
                 diagnostic(place(group.source), "note",
                            (group.targets.size() == 1 ? "target " : "targets ") + joined(group.targets)));
  }
  if (failed == 0) return {};
  std::string which;
  for (const auto& [source, targets] : failed_by_source)
    which += (which.empty() ? "" : "; ") + source + " for " + joined(targets);
  return Error(std::to_string(failed) + " of " + std::to_string(plan.jobs.size()) + " compiles failed (" + which +
               "); no package written");
}

}  // namespace

bool nvrtc_cannot_compile(const std::string& log) {
  for (const std::string_view sign : {std::string_view("cannot open source file"), std::string_view("not allowed in JIT mode"),
                                     std::string_view("unrecognized option"), compile::k_nvrtc_stops_reading})
    if (log.find(sign) != std::string::npos) return true;
  return false;
}

namespace {

// Where NVRTC's verdict on a unit stands in the build.
enum class Trial {
  none,        // not NVRTC's to try: planned for one compiler, or a link group (compile_group falls back)
  first,       // NVRTC tries the unit's first target alone (it names a header NVRTC may not open)
  rest,        // NVRTC compiles the unit's targets (after the first, or all at once); any failure is a rejection
  rejected,    // NVRTC rejected it in this build: nvcc compiles every target
  remembered,  // the cache holds NVRTC's rejection of this content: nvcc compiles every target at once
};

// NVRTC's verdicts on the plan's units, indexed by unit.
struct Verdicts {
  std::vector<Trial> trials;
  std::vector<compile::CompileJob> nvrtc_jobs;       // the job a unit's verdict is keyed by
  std::vector<compile::CompileOutput> rejections;    // NVRTC's failed output, for a unit it rejected
  std::vector<std::string> reasons;                  // a remembered verdict's reason
  std::vector<bool> suspected;                       // names a header NVRTC cannot open (nvrtc_reach.hpp)
};

// `line` without `prefix` at its start, so that a remembered reason reads right from any directory.
std::string without_prefix(const std::string& line, const std::string& prefix) {
  return !prefix.empty() && line.starts_with(prefix) ? line.substr(prefix.size()) : line;
}

// The first round's jobs: every target of each unit, except that a unit NVRTC may reject sends its
// first target alone (or, rejected before, goes to nvcc at once).
std::vector<std::size_t> first_round(plan::BuildPlan& plan, Verdicts& v, compile::CompileCache* cache) {
  const std::size_t target_count = plan.targets.size();
  std::vector<std::size_t> due;
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    const plan::PlannedUnit& unit = plan.units[u];
    if (unit.compiler == compile::Compiler::nvrtc && unit.nvcc_fallback && target_count > 0) {
      v.nvrtc_jobs[u] = plan.jobs[u * target_count];
      // A unit that names no header NVRTC cannot open compiles all its targets at once, as NVRTC most
      // likely takes it (a rejection still sends it to nvcc whole); no verdict is looked for, so an
      // ordinary unit costs the cache nothing more.
      v.suspected[u] = plan::includes_beyond_nvrtc(v.nvrtc_jobs[u]);
      std::optional<std::string> reason =
          cache && v.suspected[u] ? cache->nvrtc_rejection(v.nvrtc_jobs[u]) : std::nullopt;
      v.trials[u] = reason ? Trial::remembered : v.suspected[u] ? Trial::first : Trial::rest;
      if (reason) {
        v.reasons[u] = std::move(*reason);
        plan::switch_unit_to_nvcc(plan, u);
      }
    }
    for (std::size_t t = 0; t < (v.trials[u] == Trial::first ? 1 : target_count); ++t) due.push_back(u * target_count + t);
  }
  return due;
}

// What the verdicts in `ran` (the outputs of the jobs `due`) call for next: a rejected unit's targets,
// for nvcc; an accepted first target's siblings.
std::vector<std::size_t> next_round(plan::BuildPlan& plan, Verdicts& v, const std::vector<std::size_t>& due,
                                    const std::vector<compile::CompileOutput>& ran) {
  const std::size_t target_count = plan.targets.size();
  std::vector<std::size_t> next;
  for (std::size_t k = 0; k < due.size(); ++k) {
    const std::size_t u = due[k] / target_count;
    Trial& trial = v.trials[u];
    if ((trial == Trial::first || trial == Trial::rest) && !ran[k].ok) {
      trial = Trial::rejected;
      v.rejections[u] = ran[k];
      plan::switch_unit_to_nvcc(plan, u);
      for (std::size_t t = 0; t < target_count; ++t) next.push_back(u * target_count + t);
    } else if (trial == Trial::first) {
      trial = Trial::rest;
      for (std::size_t t = 1; t < target_count; ++t) next.push_back(u * target_count + t);
    }
  }
  return next;
}

// After nvcc compiled unit `u` in NVRTC's place: NVRTC's errors where both failed and NVRTC's are the
// ones that matter, the verdict remembered, and the notes.
void settle_rejection(const plan::BuildPlan& plan, std::size_t u, const Verdicts& v,
                      std::vector<compile::CompileOutput>& outputs, BuildEvents& events, compile::CompileCache* cache) {
  const std::size_t target_count = plan.targets.size();
  const std::string& prefix = plan.settings.display_prefix;
  const bool remembered = v.trials[u] == Trial::remembered;
  const std::string& nvrtc_log = v.rejections[u].log;
  const bool nvcc_stands = remembered || nvrtc_cannot_compile(nvrtc_log);
  bool nvcc_ok = true;
  std::vector<std::string> headers;
  for (std::size_t t = 0; t < target_count; ++t) {
    compile::CompileOutput& out = outputs[u * target_count + t];
    nvcc_ok = nvcc_ok && out.ok;
    headers.insert(headers.end(), out.headers.begin(), out.headers.end());
    // Both failed: NVRTC's errors stand unless NVRTC could not take the source at all.
    if (!out.ok && !nvcc_stands) out.log = nvrtc_log;
  }
  const std::string reason = remembered ? v.reasons[u] : without_prefix(first_line_with(nvrtc_log, "error"), prefix);
  // Remembered by content: the next build, from any directory, goes to nvcc at once.
  if (!remembered && v.suspected[u] && nvcc_stands && nvcc_ok && cache) {
    std::sort(headers.begin(), headers.end());
    headers.erase(std::unique(headers.begin(), headers.end()), headers.end());
    cache->remember_nvrtc_rejection(v.nvrtc_jobs[u], reason, std::move(headers));
  }
  const std::string source = prefix + plan.units[u].source;
  const std::string said = "NVRTC cannot compile it (" + (reason.starts_with('/') ? "" : prefix) + reason +
                           (remembered ? "; remembered from an earlier build" : "") + ")";
  if (nvcc_ok) events.detail(diagnostic(place(source), "note", said + ", so nvcc did"));
  if (!nvcc_ok && nvcc_stands) {
    events.error(diagnostic(place(source), "note", said + ", and nvcc, which compiled it instead, fails:"));
    // NVRTC missed a CCCL header where NVIDIA's wheels lack CCCL: which wheel to install.
    if (const std::string wheel = compile::missing_wheel_cccl(plan.nvcc.parent_path().parent_path());
        !wheel.empty() && compile::names_a_cccl_header(nvrtc_log))
      events.error(diagnostic(place(source), "note", wheel));
  }
}

}  // namespace

Result<std::vector<compile::CompileOutput>> compile_plan(plan::BuildPlan& plan, compile::JobRunner& runner,
                                                         BuildEvents& events, compile::CompileCache* verdicts) {
  const std::size_t target_count = plan.targets.size();
  const std::size_t units = plan.units.size();
  Verdicts v{std::vector<Trial>(units, Trial::none), std::vector<compile::CompileJob>(units),
             std::vector<compile::CompileOutput>(units), std::vector<std::string>(units),
             std::vector<bool>(units, false)};
  std::vector<compile::CompileOutput> outputs(plan.jobs.size());
  // Rounds: NVRTC's first target of each unit it may reject beside every other job, then what its
  // verdicts call for (the other targets, or nvcc for all), until nothing is left to run.
  for (std::vector<std::size_t> due = first_round(plan, v, verdicts); !due.empty();) {
    std::set<std::string> retried;   // NVRTC's failures there are not final
    std::vector<compile::CompileJob> jobs;
    for (const std::size_t i : due) {
      jobs.push_back(plan.jobs[i]);
      const Trial trial = v.trials[i / target_count];
      if (trial == Trial::first || trial == Trial::rest) retried.insert(plan.units[i / target_count].source);
    }
    std::vector<compile::CompileOutput> ran = run(runner, jobs, events, retried);
    std::vector<std::size_t> next = next_round(plan, v, due, ran);
    for (std::size_t k = 0; k < due.size(); ++k) outputs[due[k]] = std::move(ran[k]);
    due = std::move(next);
  }
  for (std::size_t u = 0; u < units; ++u)
    if (v.trials[u] == Trial::rejected || v.trials[u] == Trial::remembered)
      settle_rejection(plan, u, v, outputs, events, verdicts);

  KILN_TRY(report_logs(plan, outputs, events));
  return outputs;
}

}  // namespace kiln::build
