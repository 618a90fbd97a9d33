#include "shard/merge_check.hpp"
#include "shard/shard_plan.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace kiln::shard {
namespace {

NamedPart part(const std::string& file, std::uint64_t index, std::uint64_t count) {
  NamedPart named{file, {}};
  named.part.kiln_version = "0.4.0";
  named.part.toolchain = "nvrtc 13.0";
  named.part.fingerprint = "f";
  named.part.index = index;
  named.part.count = count;
  return named;
}

std::string error_of(std::vector<NamedPart> parts) {
  Result<std::vector<NamedPart>> r = check_parts(std::move(parts));
  return r.ok() ? std::string("accepted") : r.error().message;
}

TEST(MergeCheck, AcceptsEveryShardOnceInAnyOrder) {
  Result<std::vector<NamedPart>> r = check_parts({part("c", 3, 3), part("a", 1, 3), part("b", 2, 3)});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].file, "a");
  EXPECT_EQ((*r)[2].file, "c");
  EXPECT_TRUE(check_parts({part("only", 1, 1)}).ok());
}

TEST(MergeCheck, RefusesWhatIsNotOneBuild) {
  EXPECT_EQ(error_of({}), "no parts to merge");
  EXPECT_EQ(error_of({part("a", 1, 2)}), "missing shard 2 of 2 (given: 1); build it with kiln build --shard I/2");
  EXPECT_EQ(error_of({part("a", 1, 2), part("b", 1, 2)}), "cannot merge a and b: both are shard 1 of 2");
  EXPECT_EQ(error_of({part("a", 1, 2), part("b", 2, 3)}),
            "cannot merge a and b: they are shards of builds split in different numbers of shards");
  NamedPart other = part("b", 2, 2);
  other.part.toolchain = "nvrtc 13.1";
  EXPECT_EQ(error_of({part("a", 1, 2), other}),
            "cannot merge a and b: they were built with different toolchains (CUDA, NVRTC or nvJitLink versions)");
  other = part("b", 2, 2);
  other.part.kiln_version = "0.5.0";
  EXPECT_EQ(error_of({part("a", 1, 2), other}), "cannot merge a and b: they were built by different kiln versions");
  other = part("b", 2, 2);
  other.part.fingerprint = "g";
  EXPECT_EQ(error_of({part("a", 1, 2), other}),
            "cannot merge a and b: they are shards of different builds (another manifest, sources, options or targets)");
}

TEST(MergeCheck, RefusesShardsThatCutTheJobsDifferently) {
  NamedPart first = part("a", 1, 2), second = part("b", 2, 2);
  first.part.cut = second.part.cut = {{{"x.cu", "sm_80"}, 1}, {{"y.cu", "sm_80"}, 2}};
  first.part.cut_by = "the estimate";
  second.part.cut_by = "the compile times in times.txt (2 of 2 jobs timed)";
  EXPECT_EQ(error_of({first, second}), "accepted") << "the same cut, whatever made it";
  second.part.cut = {{{"x.cu", "sm_80"}, 2}, {{"y.cu", "sm_80"}, 1}};
  EXPECT_EQ(error_of({first, second}),
            "cannot merge a and b: their shards were cut differently (a by the estimate, b by the compile times in "
            "times.txt (2 of 2 jobs timed)); build every shard with the same --shard-times file, or none");
}

TEST(MergeCheck, ThePlanHereMustBeTheParts) {
  const std::vector<NamedPart> parts{part("a", 1, 1)};
  EXPECT_TRUE(check_plan(parts, "nvrtc 13.0", "f", "kiln.toml").ok());
  Status toolchain = check_plan(parts, "nvrtc 13.1", "f", "kiln.toml");
  ASSERT_FALSE(toolchain.ok());
  EXPECT_NE(toolchain.error().message.find("another toolchain than this kiln uses (a)"), std::string::npos);
  Status plan = check_plan(parts, "nvrtc 13.0", "g", "sub/kiln.toml");
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("another manifest, sources, options or targets than sub/kiln.toml here"),
            std::string::npos);
}

compile::CompileJob job_of(const std::string& unit, const std::string& target) {
  compile::CompileJob job;
  job.unit = unit;
  job.source = unit;
  job.target = target;
  return job;
}

// The expected cost of each unit's jobs, by unit name.
JobCost costs(std::map<std::string, std::uint64_t> per_unit) {
  return [per_unit = std::move(per_unit)](const compile::CompileJob& job) { return per_unit.at(job.unit); };
}

std::map<std::uint64_t, std::uint64_t> loads(const ShardOf& shards, const JobCost& cost, const plan::BuildPlan& plan) {
  std::map<std::uint64_t, std::uint64_t> load;
  for (const compile::CompileJob& job : plan.jobs) load[shards.at({job.unit, job.target})] += cost(job);
  return load;
}

TEST(ShardPlan, ShardsAreBalancedByCostNotByCount) {
  // The trial's shape: one heavy unit first in name order, then light ones. Cut by count, shard 1
  // got the heavy unit and 4 light ones (60 against 20); by cost, each shard gets 40.
  plan::BuildPlan plan;
  std::map<std::string, std::uint64_t> per_unit{{"a_heavy.cu", 40}};
  plan.jobs.push_back(job_of("a_heavy.cu", "sm_80"));
  for (int i = 1; i <= 8; ++i) {
    const std::string unit = "light" + std::to_string(i) + ".cu";
    per_unit[unit] = 5;
    plan.jobs.push_back(job_of(unit, "sm_80"));
  }
  const JobCost cost = costs(per_unit);
  const ShardOf shards = assign_shards(plan, 2, cost);
  ASSERT_EQ(shards.size(), 9u);
  EXPECT_EQ(shards.at({"a_heavy.cu", "sm_80"}), 1u);
  EXPECT_EQ(loads(shards, cost, plan), (std::map<std::uint64_t, std::uint64_t>{{1, 40}, {2, 40}}));
  // Every machine computes the same assignment, whatever order the plan lists the jobs in.
  std::reverse(plan.jobs.begin(), plan.jobs.end());
  EXPECT_EQ(assign_shards(plan, 2, cost), shards);
}

TEST(ShardPlan, AUnitsTargetsStayTogetherUnlessThatLeavesAShardFarBehind) {
  plan::BuildPlan plan;
  for (const char* unit : {"a.cu", "b.cu", "c.cu"})
    for (const char* target : {"sm_80", "sm_90"}) plan.jobs.push_back(job_of(unit, target));
  // Equal costs: units whole, largest first, ties by name onto the lowest least loaded shard.
  ShardOf shards = assign_shards(plan, 2, costs({{"a.cu", 1}, {"b.cu", 1}, {"c.cu", 1}}));
  EXPECT_EQ(shards.at({"a.cu", "sm_80"}), 1u);
  EXPECT_EQ(shards.at({"a.cu", "sm_90"}), 1u);
  EXPECT_EQ(shards.at({"b.cu", "sm_80"}), 2u);
  EXPECT_EQ(shards.at({"b.cu", "sm_90"}), 2u);
  EXPECT_EQ(shards.at({"c.cu", "sm_80"}), 1u);
  // One unit costs more than the rest together: its targets go to different shards.
  const JobCost heavy = costs({{"a.cu", 100}, {"b.cu", 1}, {"c.cu", 1}});
  shards = assign_shards(plan, 2, heavy);
  EXPECT_NE(shards.at({"a.cu", "sm_80"}), shards.at({"a.cu", "sm_90"}));
  EXPECT_EQ(loads(shards, heavy, plan), (std::map<std::uint64_t, std::uint64_t>{{1, 102}, {2, 102}}));
  // More shards than jobs: each job a shard of its own, some shards empty.
  EXPECT_EQ(assign_shards(plan, 8, heavy).size(), 6u);
}

TEST(ShardPlan, TheEstimateIsTheSourcesSizePlusACostPerCompile) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("kiln-shard-cost-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& [name, size] : std::vector<std::pair<std::string, std::size_t>>{{"a.cu", 1000}, {"b.cu", 300}})
    std::ofstream(dir / name) << std::string(size, 'x');
  compile::CompileJob a = job_of("a.cu", "sm_80");
  a.root = dir;
  EXPECT_EQ(estimated_cost(a), k_job_overhead + 1000);
  compile::CompileJob group = job_of("group", "sm_80");
  group.members = {a, a};
  group.members[1].source = "b.cu";
  EXPECT_EQ(estimated_cost(group), k_job_overhead + 1300) << "a link group: its members' sources";
  compile::CompileJob gone = job_of("gone.cu", "sm_80");
  gone.root = dir;
  EXPECT_EQ(estimated_cost(gone), k_job_overhead) << "an unreadable source: the cost of a compile";
  std::filesystem::remove_all(dir);
}

TEST(ShardPlan, ParsesIofN) {
  Result<ShardSpec> spec = parse_shard("3/8");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->index, 3u);
  EXPECT_EQ(spec->count, 8u);
  for (const char* bad : {"", "/", "1/", "/2", "+1/2", "1 /2", "0x1/2", "9/8", "1/5000"})
    EXPECT_FALSE(parse_shard(bad).ok()) << bad;
}

}  // namespace
}  // namespace kiln::shard
