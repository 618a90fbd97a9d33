#include "shard/shard_plan.hpp"

#include "util/hasher.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <tuple>
#include <vector>

namespace kiln::shard {

namespace fs = std::filesystem;

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

namespace {

struct UnitJobs {
  std::vector<const compile::CompileJob*> jobs;
  std::uint64_t cost = 0;
};

// What is placed on a shard at once: a unit's jobs, or one job of it (a target).
struct Item {
  std::uint64_t cost;
  std::string unit;
  std::string target;   // "": every target of the unit
};

struct Placement {
  ShardOf shards;
  std::uint64_t largest = 0;   // the most loaded shard's expected cost
};

// Largest first onto the least loaded shard; ties by unit, then target, then the lowest shard.
Placement place_largest_first(std::vector<Item> items, const std::map<std::string, UnitJobs>& units, std::uint64_t count) {
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    return std::tie(b.cost, a.unit, a.target) < std::tie(a.cost, b.unit, b.target);
  });
  std::vector<std::uint64_t> load(count, 0);
  Placement placement;
  for (const Item& item : items) {
    const auto least = std::min_element(load.begin(), load.end());
    *least += item.cost;
    const std::uint64_t shard = static_cast<std::uint64_t>(least - load.begin()) + 1;
    for (const compile::CompileJob* job : units.at(item.unit).jobs)
      if (item.target.empty() || job->target == item.target) placement.shards.emplace(std::pair(job->unit, job->target), shard);
  }
  placement.largest = load.empty() ? 0 : *std::max_element(load.begin(), load.end());
  return placement;
}

}  // namespace

std::uint64_t estimated_cost(const compile::CompileJob& job) {
  std::uint64_t bytes = 0;
  const auto add = [&](const compile::CompileJob& j) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(j.root / j.source, ec);
    bytes += ec ? 0 : static_cast<std::uint64_t>(size);
  };
  if (job.members.empty()) add(job);
  for (const compile::CompileJob& member : job.members) add(member);
  return k_job_overhead + bytes;
}

ShardOf assign_shards(const plan::BuildPlan& plan, std::uint64_t count, const JobCost& cost) {
  std::map<std::string, UnitJobs> units;
  std::uint64_t total = 0;
  for (const compile::CompileJob& job : plan.jobs) {
    UnitJobs& unit = units[job.unit];
    const std::uint64_t c = cost(job);
    unit.jobs.push_back(&job);
    unit.cost += c;
    total += c;
  }
  // Units whole, so that one shard scans each source; and with every unit that costs more than a
  // shard's share placed target by target. The second only when it lowers the largest shard's cost by
  // more than a tenth: each shard that holds a target of a unit scans its source.
  std::vector<Item> whole, split;
  const std::uint64_t share = total / std::max<std::uint64_t>(count, 1);
  for (const auto& [name, unit] : units) {
    whole.push_back({unit.cost, name, ""});
    if (unit.cost <= share || unit.jobs.size() == 1) {
      split.push_back({unit.cost, name, ""});
      continue;
    }
    for (const compile::CompileJob* job : unit.jobs) split.push_back({cost(*job), name, job->target});
  }
  Placement by_unit = place_largest_first(std::move(whole), units, count);
  Placement by_target = place_largest_first(std::move(split), units, count);
  return by_target.largest * 10 < by_unit.largest * 9 ? std::move(by_target.shards) : std::move(by_unit.shards);
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
                                 const plan::PlanSettings& settings, compile::CacheContext context, ShardSpec spec,
                                 const CostOfPlan& cost) {
  Result<plan::BuildPlan> plan = plan::make_plan(manifest, toolkit, settings, {});
  if (!plan) return plan.error();
  ShardLayout layout;
  layout.fingerprint = plan_fingerprint(*plan, context);
  layout.jobs = plan->jobs.size();
  const ShardOf shards = assign_shards(*plan, spec.count, cost(*plan));
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
