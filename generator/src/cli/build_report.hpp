// What `kiln build` tells about a finished build: the summary line (-v, --summary) and the --json
// report (stdout; diagnostics stay on stderr), so scripts need not parse messages.
#pragma once

#include "build/builder.hpp"
#include "shard/shard_plan.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::cli {

// "kiln: wrote app.kiln: 7 kernels, 2 units x 13 targets, 81234 bytes, in 4.2 s"
std::string summary_line(const build::BuildResult& facts);

// "kiln: wrote app.1-of-2.kilnpart: shard 1 of 2, 12 of the build's 24 images, in 3.10 s"
std::string shard_summary_line(const build::BuildResult& facts, const shard::ShardSpec& spec);

// "kiln: app.kiln: 3 warnings (above): 1 from the scan, 2 from the compiler; with --strict
// (KILN_STRICT=1) the scan's findings fail the build": the hint only when the scan's are among them.
std::string warning_count_line(const std::string& output, const std::vector<build::WarningSource>& sources);

// {"ok": true, "output", "depfile", "kernels", "bytes", "targets", "units": [{"source", "compiler",
// "images": [{"target", "seconds", "cache"}]}], "seconds": {"scan", "compile", "total"}, "warnings"}.
// "cache" is "hit" (the compile cache held the image) or "miss" (compiled now).
nlohmann::json build_report(const build::BuildResult& facts);

// {"ok": false, "exit_code": N, "output", "warnings"}: the errors themselves are on stderr.
nlohmann::json failed_build_report(int exit_code, const std::string& output, const std::vector<std::string>& warnings);

}  // namespace kiln::cli
