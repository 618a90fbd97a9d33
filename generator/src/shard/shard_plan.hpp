// Which jobs a shard compiles, and what tells a merge that parts belong together.
//
// Job i of the plan (source-major, then target; compile/compile_job.hpp) belongs to shard i mod N + 1,
// so every shard gets each target of about 1/N of the units and the shards come out even. A unit the
// second round moves from NVRTC to nvcc keeps its jobs' shards (the same source and target).
#pragma once

#include "compile/compile_key.hpp"
#include "plan/build_plan.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <map>
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

}  // namespace kiln::shard
