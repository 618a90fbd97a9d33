// The compile times a build measured, kept in a file so that later sharded builds cut their shards by
// them (kiln build --write-times FILE; kiln build --shard I/N --shard-times FILE).
//
// Why a file the fleet shares rather than the cache: every shard and the merge must cut alike
// without talking, so the cut may depend only on what every machine is given (the tree, and this
// file). Each machine's cache holds other times (or none), and a remote cache changes while the
// shards start. Why by unit and target rather than by compile key: a job's key holds the names the
// scan finds, and a shard cuts before it scans; a unit's name (its manifest entry: a source, variant
// or link group) and its target are known from the manifest alone. A time from another version of
// the source is still a better guess than its size.
//
// The file, text (written by format_times; '#' lines and empty lines are skipped on reading):
//
//   kiln compile times 1
//   <microseconds> <target> <unit>        one line per job, by unit then target
#pragma once

#include "compile/compile_job.hpp"
#include "plan/build_plan.hpp"
#include "shard/shard_plan.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::shard {

// {unit, target} -> microseconds of its compile.
using CompileTimes = std::map<std::pair<std::string, std::string>, std::uint64_t>;

// Each job's time in `outputs` (of `plan.jobs`): the compile's, or for a cache hit the time its entry
// recorded when it was compiled. Jobs with no time (another shard's, a hit from an entry that
// recorded none) are left out.
CompileTimes measured_times(const plan::BuildPlan& plan, const std::vector<compile::CompileOutput>& outputs);

std::string format_times(const CompileTimes& times);
// An error says which line is wrong and why; the caller adds the file's name.
Result<CompileTimes> parse_times(const std::string& text);
// Reads and parses `path`; errors name it (and the line).
Result<CompileTimes> read_times(const std::filesystem::path& path);

// With no recorded time to scale by, an estimate (shard_plan.hpp: bytes of source plus 16 KiB) is
// taken as this many microseconds per byte: 16 KiB, a compile of an empty source, as 1.6 s.
inline constexpr std::uint64_t k_default_micros_per_byte = 100;

// What shards cut by when given `times`: a job's recorded time where `times` has its unit and
// target, else its estimate scaled to microseconds by the jobs of `plan` that have both (their
// recorded microseconds over their estimated bytes, in integers so that every machine gets the same
// cut), or by k_default_micros_per_byte when none has. The same for any plan with the same jobs and
// sources, so the plan before the scan and the plan after it cut alike.
struct TimedCost {
  JobCost cost;
  std::size_t recorded = 0;    // jobs of `plan` with a recorded time
  std::size_t estimated = 0;   // the others
};
TimedCost timed_cost(const plan::BuildPlan& plan, const CompileTimes& times);

}  // namespace kiln::shard
