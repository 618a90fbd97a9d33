// What `kiln build` tells about a finished build: the summary line (-v, --summary) and the --json
// report (stdout; diagnostics stay on stderr), so scripts need not parse messages.
#pragma once

#include "compile/compile_job.hpp"
#include "plan/build_plan.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::cli {

struct BuildFacts {
  std::string output;                           // as given or defaulted: "app.kiln"
  std::string depfile;
  std::size_t kernels = 0;
  std::size_t bytes = 0;
  double scan_seconds = 0;
  double compile_seconds = 0;
  double total_seconds = 0;
  std::vector<std::string> warnings;            // every warning printed (or, with -q, not printed)
};

// "kiln: wrote app.kiln: 7 kernels, 2 units x 13 targets, 81234 bytes, in 4.2 s"
std::string summary_line(const BuildFacts& facts, const plan::BuildPlan& plan);

// {"ok": true, "output", "depfile", "kernels", "bytes", "targets", "units": [{"source", "compiler",
// "images": [{"target", "seconds", "cache"}]}], "seconds": {"scan", "compile", "total"}, "warnings"}.
// "cache" is "hit" (the compile cache held the image) or "miss" (compiled now).
nlohmann::json build_report(const BuildFacts& facts, const plan::BuildPlan& plan,
                            const std::vector<compile::CompileOutput>& outputs);

// {"ok": false, "exit_code": N, "output", "warnings"}: the errors themselves are on stderr.
nlohmann::json failed_build_report(int exit_code, const std::string& output, const std::vector<std::string>& warnings);

}  // namespace kiln::cli
