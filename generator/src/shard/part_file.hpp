// A part of a sharded build (kiln build --shard I/N): the compile cache entries of the jobs shard I
// of N compiled, with what a merge must check before it trusts them. Written to disk: change
// k_part_version with any change.
//
//   str "kiln-part" | u64 version | u64 0x0102030405060708 (byte order) | str kiln version
//   | str toolchain (compile/compile_key.hpp's CacheContext::toolchain) | str fingerprint (the plan's)
//   | u64 shard index (1-based) | u64 shard count | u64 jobs in the whole plan
//   | u64 entry count, each: str key (32 hex digits) | str value (compile/compile_cache.hpp's entry)
//   | str what the cut was made by | u64 job count, each: str unit | str target | u64 shard (the cut)
//   | u64 XXH3-64 of every byte before it
//
// Version 2 added the cut: the merge checks that every shard cut the jobs alike (a shard given other
// compile times than the others would leave some jobs to no shard).
//
// Fields as util/byte_stream.hpp writes them.
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kiln::shard {

inline constexpr std::uint64_t k_part_version = 2;

struct Part {
  std::string kiln_version;
  std::string toolchain;
  std::string fingerprint;
  std::uint64_t index = 0;     // 1..count
  std::uint64_t count = 0;
  std::uint64_t jobs = 0;
  std::map<std::string, std::vector<std::byte>> entries;
  std::string cut_by;          // "the estimate", or the compile times' digest and how many jobs they timed
  std::map<std::pair<std::string, std::string>, std::uint64_t> cut;   // {unit, target} -> shard (shard_plan.hpp's ShardOf)
};

std::vector<std::byte> encode_part(const Part& part);

// The part in `bytes`; an error that says what is wrong with it ("not a part of a sharded build",
// "damaged: its checksum does not match") without the file's name, which the caller adds.
Result<Part> decode_part(const std::vector<std::byte>& bytes);

// Reads and decodes `path`; errors name it.
Result<Part> read_part(const std::filesystem::path& path);

}  // namespace kiln::shard
