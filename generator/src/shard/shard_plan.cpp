#include "shard/shard_plan.hpp"

#include "util/hasher.hpp"

#include <charconv>

namespace kiln::shard {

Result<ShardSpec> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  ShardSpec spec;
  const auto number = [](std::string_view digits, std::uint64_t& out) {
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size();
  };
  const std::string_view all(text);
  if (slash == std::string::npos || !number(all.substr(0, slash), spec.index) || !number(all.substr(slash + 1), spec.count))
    return Error{"--shard " + text + ": not I/N (shard I of N, e.g. 2/4)"};
  if (spec.count == 0 || spec.count > 4096) return Error{"--shard " + text + ": N must be from 1 to 4096"};
  if (spec.index == 0 || spec.index > spec.count) return Error{"--shard " + text + ": I must be from 1 to N"};
  return spec;
}

ShardOf assign_shards(const plan::BuildPlan& plan, std::uint64_t count) {
  ShardOf shards;
  const std::uint64_t total = plan.jobs.size();
  for (std::uint64_t i = 0; i < total; ++i)
    shards.emplace(std::pair(plan.jobs[i].unit, plan.jobs[i].target), i * count / total + 1);
  return shards;
}

std::string plan_fingerprint(const plan::BuildPlan& plan, compile::CacheContext& context) {
  Hasher hasher;
  hasher.add("part-of", "kiln plan 1");
  hasher.add("jobs", std::to_string(plan.jobs.size()));
  for (const compile::CompileJob& job : plan.jobs) {
    const std::optional<compile::CompileKey> key = compile::compile_key(job, context);
    hasher.add("job", job.source + " " + job.target + " " + (key ? key->hex : std::string("unreadable")));
  }
  return hasher.hex_digest();
}

Result<ShardLayout> shard_layout(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                 const plan::PlanSettings& settings, compile::CacheContext context, ShardSpec spec) {
  Result<plan::BuildPlan> plan = plan::make_plan(manifest, toolkit, settings, {});
  if (!plan) return plan.error();
  ShardLayout layout;
  layout.fingerprint = plan_fingerprint(*plan, context);
  layout.jobs = plan->jobs.size();
  const ShardOf shards = assign_shards(*plan, spec.count);
  std::set<std::string> units;
  for (const auto& [job, index] : shards)
    if (index == spec.index) units.insert(job.first);
  for (const plan::PlannedUnit& unit : plan->units) {
    if (!units.count(unit.name)) continue;
    if (!unit.source.empty()) layout.sources.insert(unit.source);
    for (const plan::PlannedUnit& member : unit.members) layout.sources.insert(member.source);
  }
  return layout;
}

}  // namespace kiln::shard
