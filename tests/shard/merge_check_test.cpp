#include "shard/merge_check.hpp"
#include "shard/shard_plan.hpp"

#include <gtest/gtest.h>

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

TEST(ShardPlan, EachShardGetsARunOfJobsByUnitAndTarget) {
  plan::BuildPlan plan;
  for (const char* unit : {"a.cu", "b.cu", "f32"})
    for (const char* target : {"sm_80", "sm_90"}) {
      compile::CompileJob job;
      job.unit = unit;
      job.source = "a.cu";   // variants share a source: the unit tells them apart
      job.target = target;
      plan.jobs.push_back(job);
    }
  const ShardOf shards = assign_shards(plan, 4);
  ASSERT_EQ(shards.size(), 6u);
  EXPECT_EQ(shards.at({"a.cu", "sm_80"}), 1u);
  EXPECT_EQ(shards.at({"a.cu", "sm_90"}), 1u);
  EXPECT_EQ(shards.at({"b.cu", "sm_80"}), 2u);
  EXPECT_EQ(shards.at({"b.cu", "sm_90"}), 3u);
  EXPECT_EQ(shards.at({"f32", "sm_80"}), 3u);
  EXPECT_EQ(shards.at({"f32", "sm_90"}), 4u);
  // As many shards as jobs: one each; fewer: runs that differ in length by one at most.
  std::map<std::uint64_t, int> sizes;
  for (const auto& [job, shard] : assign_shards(plan, 6)) ++sizes[shard];
  EXPECT_EQ(sizes.size(), 6u);
  sizes.clear();
  for (const auto& [job, shard] : assign_shards(plan, 4)) ++sizes[shard];
  for (const auto& [shard, size] : sizes) EXPECT_TRUE(size == 1 || size == 2) << shard;
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
