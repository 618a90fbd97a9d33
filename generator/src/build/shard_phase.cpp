#include "build/shard_phase.hpp"

#include "util/file_io.hpp"

namespace kiln::build {

namespace fs = std::filesystem;

Result<std::vector<shard::NamedPart>> read_parts(const std::vector<fs::path>& files) {
  std::vector<shard::NamedPart> parts;
  for (const fs::path& file : files) {
    Result<shard::Part> part = shard::read_part(file);
    if (!part) return part.error();
    parts.push_back({file.string(), std::move(*part)});
  }
  return shard::check_parts(std::move(parts));
}

shard::Entries merged_entries(std::vector<shard::NamedPart>& parts) {
  shard::Entries entries;
  for (shard::NamedPart& named : parts) entries.merge(named.part.entries);
  return entries;
}

Status write_part(const fs::path& output, const PartToWrite& what, const plan::BuildPlan& plan,
                  compile::CacheContext context, shard::Entries recorded) {
  for (const compile::CompileJob& job : plan.jobs) {
    const auto shard = what.cut.find({job.unit, job.target});
    if (shard != what.cut.end() && shard->second != what.spec.index) continue;
    const std::optional<compile::CompileKey> key = compile::compile_key(job, context);
    if (!key || !recorded.count(key->hex))
      return Error{(job.members.empty() ? job.display_prefix + job.source : job.source) + ": its " + job.target +
                   " image was not kept (the source or a header changed during the build); no part written, "
                   "build this shard again"};
  }
  shard::Part part;
  part.kiln_version = what.kiln_version;
  part.toolchain = what.toolchain;
  part.fingerprint = what.fingerprint;
  part.index = what.spec.index;
  part.count = what.spec.count;
  part.jobs = what.plan_jobs;
  part.entries = std::move(recorded);
  part.cut = what.cut;
  part.cut_by = what.cut_by;
  return write_file_atomically(output, shard::encode_part(part));
}

std::string default_part_name(const std::string& package_name, const shard::ShardSpec& spec) {
  return package_name + "." + std::to_string(spec.index) + "-of-" + std::to_string(spec.count) + ".kilnpart";
}

}  // namespace kiln::build
