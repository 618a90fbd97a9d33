// A part of a sharded build (kiln build --shard I/N): the compile cache entries of the jobs shard I
// of N compiled, with what a merge must check before it trusts them. Written to disk: change
// k_part_version with any change.
//
//   str "kiln-part" | u64 version | u64 0x0102030405060708 (byte order) | str kiln version
//   | str toolchain (compile/compile_key.hpp's CacheContext::toolchain) | str fingerprint (the plan's)
//   | u64 shard index (1-based) | u64 shard count | u64 jobs in the whole plan
//   | u64 entry count, each: str key (32 hex digits) | str value (compile/compile_cache.hpp's entry)
//   | u64 XXH3-64 of every byte before it
//
// Fields as util/byte_stream.hpp writes them.
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace kiln::shard {

inline constexpr std::uint64_t k_part_version = 1;

struct Part {
  std::string kiln_version;
  std::string toolchain;
  std::string fingerprint;
  std::uint64_t index = 0;     // 1..count
  std::uint64_t count = 0;
  std::uint64_t jobs = 0;
  std::map<std::string, std::vector<std::byte>> entries;
};

std::vector<std::byte> encode_part(const Part& part);

// The part in `bytes`; an error that says what is wrong with it ("not a part of a sharded build",
// "damaged: its checksum does not match") without the file's name, which the caller adds.
Result<Part> decode_part(const std::vector<std::byte>& bytes);

// Reads and decodes `path`; errors name it.
Result<Part> read_part(const std::filesystem::path& path);

}  // namespace kiln::shard
