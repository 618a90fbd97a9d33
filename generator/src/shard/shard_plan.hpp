// Which jobs a shard compiles, and what tells a merge that parts belong together.
//
// Job i of the T jobs of the plan (unit-major, then target) belongs to shard floor(i * N / T) + 1: a
// run of T/N jobs (give or take one), so that each shard gets every target of its units, and scans
// only those (a unit at the edge of a run is in two shards). A unit the second round moves from NVRTC
// to nvcc keeps its jobs' shards (the same unit and target).
#pragma once

#include "compile/compile_key.hpp"
#include "plan/build_plan.hpp"
#include "util/result.hpp"

#include <cstdint>
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

// Each job's shard by its unit and target: {unit name (a source, variant or link group), target} -> 1..count.
using ShardOf = std::map<std::pair<std::string, std::string>, std::uint64_t>;
ShardOf assign_shards(const plan::BuildPlan& plan, std::uint64_t count);

// The XXH3-128 of every job's compile key in plan order: the same for the same manifest, sources,
// options, targets and toolchain, wherever the tree is. Headers are checked entry by entry later.
std::string plan_fingerprint(const plan::BuildPlan& plan, compile::CacheContext& context);

// What shards and their merge agree on before scanning, from the plan the manifest alone makes (the
// scan adds names to units, and routes some to nvcc, but adds no unit and no job): its fingerprint,
// its job count, and the kernel sources of `spec`'s units, the only ones that shard scans. A request
// in another shard's kernel source for a template of this shard's units is then not seen by this
// shard: its image differs from the whole build's, and the merge fails naming it.
struct ShardLayout {
  std::string fingerprint;
  std::size_t jobs = 0;
  std::set<std::string> sources;
};
Result<ShardLayout> shard_layout(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                 const plan::PlanSettings& settings, compile::CacheContext context, ShardSpec spec);

}  // namespace kiln::shard
