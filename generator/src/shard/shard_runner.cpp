#include "shard/shard_runner.hpp"

#include "util/diagnostic.hpp"

namespace kiln::shard {

namespace {

class ShardRunner final : public compile::JobRunner {
public:
  ShardRunner(compile::JobRunner& inner, ShardOf shards, std::uint64_t index)
      : m_inner(inner), m_shards(std::move(shards)), m_index(index) {}

  std::vector<compile::CompileOutput> run(const std::vector<compile::CompileJob>& jobs,
                                          const compile::ProgressFn& progress) override {
    std::vector<compile::CompileOutput> outputs(jobs.size());
    std::vector<std::size_t> mine;
    std::vector<compile::CompileJob> todo;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const auto it = m_shards.find({jobs[i].unit, jobs[i].target});
      if (it != m_shards.end() && it->second != m_index) {
        outputs[i].ok = true;   // another shard's: nothing here to assemble or report
        continue;
      }
      mine.push_back(i);
      todo.push_back(jobs[i]);
    }
    std::vector<compile::CompileOutput> done = m_inner.run(todo, progress);
    for (std::size_t k = 0; k < mine.size(); ++k) outputs[mine[k]] = std::move(done[k]);
    return outputs;
  }

private:
  compile::JobRunner& m_inner;
  ShardOf m_shards;
  std::uint64_t m_index;
};

class RefusingRunner final : public compile::JobRunner {
public:
  RefusingRunner(ShardOf shards, std::vector<std::string> part_files)
      : m_shards(std::move(shards)), m_part_files(std::move(part_files)) {}

  std::vector<compile::CompileOutput> run(const std::vector<compile::CompileJob>& jobs,
                                          const compile::ProgressFn& progress) override {
    std::vector<compile::CompileOutput> outputs(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const compile::CompileJob& job = jobs[i];
      const auto it = m_shards.find({job.unit, job.target});
      std::string which = "no part";
      if (it != m_shards.end() && it->second <= m_part_files.size())
        which = "shard " + std::to_string(it->second) + " of " + std::to_string(m_part_files.size()) + " (" +
                m_part_files[it->second - 1] + ")";
      // A link group's source is its name, not a file under the display prefix.
      Location where = place(job.members.empty() ? job.display_prefix + job.source : job.source);
      where.target = job.target;
      outputs[i].log = diagnostic(where, "error",
                                  which + " has no " + job.target +
                                      " image of it that matches the sources here: a header differs from the "
                                      "shard's, or the shard ran from another directory and the image has "
                                      "warnings; build the shard again here");
      if (progress) progress(i + 1, jobs.size(), job, outputs[i]);
    }
    return outputs;
  }

private:
  ShardOf m_shards;
  std::vector<std::string> m_part_files;
};

}  // namespace

std::unique_ptr<compile::JobRunner> make_shard_runner(compile::JobRunner& inner, ShardOf shards, std::uint64_t index) {
  return std::make_unique<ShardRunner>(inner, std::move(shards), index);
}

std::unique_ptr<compile::JobRunner> make_refusing_runner(ShardOf shards, std::vector<std::string> part_files) {
  return std::make_unique<RefusingRunner>(std::move(shards), std::move(part_files));
}

std::optional<std::vector<std::byte>> RecordingStore::get(std::string_view key) {
  std::optional<std::vector<std::byte>> value = m_inner.get(key);
  if (value) {
    std::lock_guard lock(m_mutex);
    m_entries[std::string(key)] = *value;
  }
  return value;
}

void RecordingStore::put(std::string_view key, std::span<const std::byte> value) {
  {
    std::lock_guard lock(m_mutex);
    m_entries[std::string(key)].assign(value.begin(), value.end());
  }
  m_inner.put(key, value);
}

Entries RecordingStore::take_entries() {
  std::lock_guard lock(m_mutex);
  return std::move(m_entries);
}

std::optional<std::vector<std::byte>> PartsStore::get(std::string_view key) {
  const auto it = m_entries.find(std::string(key));
  if (it == m_entries.end()) return std::nullopt;
  return it->second;
}

}  // namespace kiln::shard
