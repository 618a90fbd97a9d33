#include "cli/build_report.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace kiln::cli {

std::string summary_line(const build::BuildResult& facts) {
  const plan::BuildPlan& plan = facts.plan;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", facts.total_seconds);
  return "kiln: wrote " + facts.output.string() + ": " + std::to_string(facts.kernels) + " kernels, " +
         std::to_string(plan.sources.size()) + " units x " + std::to_string(plan.targets.size()) + " targets, " +
         std::to_string(facts.bytes) + " bytes, in " + seconds + " s";
}

std::string shard_summary_line(const build::BuildResult& facts, const shard::ShardSpec& spec) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", facts.total_seconds);
  return "kiln: wrote " + facts.output.string() + ": shard " + std::to_string(spec.index) + " of " +
         std::to_string(spec.count) + ", " + std::to_string(facts.part_images) + " of the build's " +
         std::to_string(facts.plan.jobs.size()) + " images, in " + seconds + " s";
}

std::string warning_count_line(const std::string& output, const std::vector<build::WarningSource>& sources) {
  using build::WarningSource;
  const auto count = [&](WarningSource source) { return std::count(sources.begin(), sources.end(), source); };
  std::string parts;
  for (const auto& [source, whose] : {std::pair{WarningSource::scan, "the scan"},
                                      {WarningSource::compiler, "the compiler"},
                                      {WarningSource::cache, "the cache"},
                                      {WarningSource::kiln, "Kiln"}})
    if (const auto n = count(source); n > 0)
      parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " from " + whose;
  return "kiln: " + output + ": " + std::to_string(sources.size()) + (sources.size() == 1 ? " warning" : " warnings") +
         " (above): " + parts +
         (count(WarningSource::scan) > 0 ? "; with --strict (KILN_STRICT=1) the scan's findings fail the build" : "");
}

nlohmann::json build_report(const build::BuildResult& facts) {
  const plan::BuildPlan& plan = facts.plan;
  const std::vector<compile::CompileOutput>& outputs = facts.outputs;
  nlohmann::json units = nlohmann::json::array();
  for (std::size_t i = 0; i < plan.jobs.size() && i < outputs.size(); ++i) {
    const compile::CompileJob& job = plan.jobs[i];
    // Jobs come unit by unit; a variant or link group is a unit of its own, named as in the package.
    if (units.empty() || units.back()["unit"] != job.unit) {
      nlohmann::json unit = {{"unit", job.unit},
                             {"source", job.source},
                             {"compiler", job.compiler == compile::Compiler::nvcc ? "nvcc" : "nvrtc"},
                             {"images", nlohmann::json::array()}};
      if (!job.members.empty()) {
        nlohmann::json members = nlohmann::json::array();
        for (const compile::CompileJob& m : job.members)
          members.push_back({{"source", m.source}, {"compiler", m.compiler == compile::Compiler::nvcc ? "nvcc" : "nvrtc"}});
        unit["link_group"] = std::move(members);
        unit.erase("compiler");
      }
      units.push_back(std::move(unit));
    }
    units.back()["images"].push_back({{"target", job.target}, {"seconds", outputs[i].seconds}, {"cache", outputs[i].from_cache ? "hit" : "miss"}});
  }
  return {{"ok", true},
          {"output", facts.output.string()},
          {"depfile", facts.depfile.string()},
          {"kernels", facts.kernels},
          {"bytes", facts.bytes},
          {"targets", plan.targets},
          {"units", std::move(units)},
          {"seconds", {{"scan", facts.scan_seconds}, {"compile", facts.compile_seconds}, {"total", facts.total_seconds}}},
          {"warnings", facts.warnings}};
}

nlohmann::json failed_build_report(int exit_code, const std::string& output, const std::vector<std::string>& warnings) {
  return {{"ok", false}, {"exit_code", exit_code}, {"output", output}, {"warnings", warnings}};
}

}  // namespace kiln::cli
