// The compile phase of a sharded build and of its merge, as a JobRunner and stores around the usual ones:
//
//   kiln build --shard I/N   ShardRunner(CachedRunner(compile cache over RecordingStore(the build's store)))
//                            runs the jobs of shard I only; the entries the cache gets or puts for them
//                            are the part's (part_file.hpp)
//   kiln merge PART...       CachedRunner(compile cache over PartsStore, RefusingRunner): every job is
//                            a hit from the parts; one that no part holds fails, naming its shard
#pragma once

#include "compile/job_runner.hpp"
#include "shard/shard_plan.hpp"
#include "store/store.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::shard {

using Entries = std::map<std::string, std::vector<std::byte>>;

// Runs the jobs of shard `index` on `inner`; every other job comes back ok and empty (a shard
// assembles no package).
std::unique_ptr<compile::JobRunner> make_shard_runner(compile::JobRunner& inner, ShardOf shards, std::uint64_t index);

// Passes everything to `inner` (which must outlive it), remembering each entry got or put.
class RecordingStore final : public store::Store {
public:
  explicit RecordingStore(store::Store& inner) : m_inner(inner) {}
  std::optional<std::vector<std::byte>> get(std::string_view key) override;
  void put(std::string_view key, std::span<const std::byte> value) override;
  void add_counters(const store::Counters& counters) override { m_inner.add_counters(counters); }
  Entries take_entries();

private:
  store::Store& m_inner;
  std::mutex m_mutex;
  Entries m_entries;
};

// The parts' entries, read-only.
class PartsStore final : public store::Store {
public:
  explicit PartsStore(Entries entries) : m_entries(std::move(entries)) {}
  std::optional<std::vector<std::byte>> get(std::string_view key) override;
  void put(std::string_view, std::span<const std::byte>) override {}
  void add_counters(const store::Counters&) override {}

private:
  Entries m_entries;
};

// Fails every job it is given: the parts should have held it. `part_files[i]` is shard i+1's file.
std::unique_ptr<compile::JobRunner> make_refusing_runner(ShardOf shards, std::vector<std::string> part_files);

}  // namespace kiln::shard
