// Which jobs a shard compiles, and what tells a merge that parts belong together.
//
// Shards are balanced by each job's expected cost (estimated_cost: its source's size plus a fixed
// cost per compile; or the compile times every shard is given, compile_times.hpp), computed from the
// tree (and that file) alone, so that every shard computes the same assignment without talking (each
// part records it, and the merge checks they agree): a unit's jobs are placed together (the unit's shard alone scans
// its source), largest first onto the least loaded shard, ties by unit name. Where that leaves the
// largest shard more than a tenth above what placing each unit costing more than a shard's share
// (total / N) target by target would, those units are placed by target. A unit the second round
// moves from NVRTC to nvcc keeps its jobs' shards (the same unit and target, the same files).
#pragma once

#include "compile/compile_key.hpp"
#include "plan/build_plan.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace kiln::shard {

struct ShardSpec {
  std::uint64_t index = 0;   // 1..count
  std::uint64_t count = 0;
};

// "2/4" -> {2, 4}; an error names what is wrong ("--shard 5/4: I must be from 1 to N").
Result<ShardSpec> parse_shard(const std::string& text);

// What a compile of `job` is expected to cost, in bytes of source: the bytes of its source (of every
// member's, for a link group) plus k_job_overhead, what starting a compile and reading the toolkit's
// headers costs. Compile times grow with the source a compile reads; the estimate needs no scan and
// no cache, so every machine makes the same one.
inline constexpr std::uint64_t k_job_overhead = 16 * 1024;
std::uint64_t estimated_cost(const compile::CompileJob& job);

// Each job's shard by its unit and target: {unit name (a source, variant or link group), target} -> 1..count.
using ShardOf = std::map<std::pair<std::string, std::string>, std::uint64_t>;
using JobCost = std::function<std::uint64_t(const compile::CompileJob&)>;
ShardOf assign_shards(const plan::BuildPlan& plan, std::uint64_t count, const JobCost& cost = estimated_cost);

// The XXH3-128 of every job's compile key in plan order: the same for the same manifest, sources,
// options, targets and toolchain, wherever the tree is. Headers are checked entry by entry later.
std::string plan_fingerprint(const plan::BuildPlan& plan, compile::CacheContext& context);

// What shards and their merge agree on before scanning, from the plan the manifest alone makes (the
// scan adds names to units, and routes some to nvcc, but adds no unit and no job): its fingerprint,
// its job count, and the kernel sources of `spec`'s units, the only ones that shard scans. A request
// in another shard's kernel source for a template of this shard's units is then not seen by this
// shard: its image differs from the whole build's, and the merge fails naming it.
// `cost`: what each job of a plan is expected to cost (estimated_cost, or compile_times.hpp's
// timed_cost of that plan), as the shards cut by it.
struct ShardLayout {
  std::string fingerprint;
  std::size_t jobs = 0;
  std::set<std::string> sources;
};
using CostOfPlan = std::function<JobCost(const plan::BuildPlan&)>;
Result<ShardLayout> shard_layout(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                 const plan::PlanSettings& settings, compile::CacheContext context, ShardSpec spec,
                                 const CostOfPlan& cost);

}  // namespace kiln::shard
