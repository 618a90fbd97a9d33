// kiln build --shard I/N and kiln merge in the build's pipeline: the part a shard writes once its
// jobs compiled, and the parts a merge reads before it plans (shard/ holds the rules).
#pragma once

#include "compile/compile_key.hpp"
#include "plan/build_plan.hpp"
#include "shard/merge_check.hpp"
#include "shard/shard_plan.hpp"
#include "shard/shard_runner.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::build {

// Reads every part and checks that they make one whole build (shard/merge_check.hpp).
Result<std::vector<shard::NamedPart>> read_parts(const std::vector<std::filesystem::path>& files);

// All the parts' entries, for the merge's compile cache.
shard::Entries merged_entries(std::vector<shard::NamedPart>& parts);

struct PartToWrite {
  shard::ShardSpec spec;
  std::string kiln_version;
  std::string toolchain;
  std::string fingerprint;    // of the plan before the compile phase changed it
  std::size_t plan_jobs = 0;
  shard::ShardOf cut;         // which shard compiles each job
  std::string cut_by;         // what the cut was made by, for the merge's messages
};

// Writes the part of `plan`'s (as the compile phase left it) jobs in `what.spec`'s shard by `what.cut`, from the
// entries the build recorded. Fails, naming the job, if one has none (a source or header changed
// during the build, so the cache did not keep its output).
Status write_part(const std::filesystem::path& output, const PartToWrite& what, const plan::BuildPlan& plan,
                  compile::CacheContext context, shard::Entries recorded);

// "<name>.<I>-of-<N>.kilnpart": where a shard writes without -o.
std::string default_part_name(const std::string& package_name, const shard::ShardSpec& spec);

}  // namespace kiln::build
