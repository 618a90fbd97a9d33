#include "shard/part_file.hpp"

#include "util/byte_stream.hpp"
#include "util/file_io.hpp"

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kiln::shard {

namespace {

constexpr std::string_view k_magic = "kiln-part";
constexpr std::uint64_t k_byte_order = 0x0102030405060708ull;

}  // namespace

std::vector<std::byte> encode_part(const Part& part) {
  ByteWriter out;
  out.str(std::string(k_magic));
  out.u64(k_part_version);
  out.u64(k_byte_order);
  out.str(part.kiln_version);
  out.str(part.toolchain);
  out.str(part.fingerprint);
  out.u64(part.index);
  out.u64(part.count);
  out.u64(part.jobs);
  out.u64(part.entries.size());
  for (const auto& [key, value] : part.entries) {
    out.str(key);
    out.bytes(value.data(), value.size());
  }
  out.str(part.cut_by);
  out.u64(part.cut.size());
  for (const auto& [job, shard] : part.cut) {
    out.str(job.first);
    out.str(job.second);
    out.u64(shard);
  }
  std::vector<std::byte> bytes = out.take();
  const std::uint64_t checksum = XXH3_64bits(bytes.data(), bytes.size());
  const auto* raw = reinterpret_cast<const std::byte*>(&checksum);
  bytes.insert(bytes.end(), raw, raw + sizeof checksum);
  return bytes;
}

Result<Part> decode_part(const std::vector<std::byte>& bytes) {
  const Error not_a_part{"not a part of a sharded build (kiln build --shard I/N writes them)"};
  std::string magic;
  std::uint64_t version = 0, order = 0;
  {
    ByteReader head(bytes);
    if (!head.str(magic) || magic != k_magic) return not_a_part;
    if (!head.u64(version) || version != k_part_version)
      return Error{"a part of version " + std::to_string(version) + "; this kiln reads version " +
                   std::to_string(k_part_version) + " (build every part and merge with the same kiln)"};
    if (!head.u64(order) || order != k_byte_order) return Error{"written on a machine of another byte order"};
  }
  if (bytes.size() < sizeof(std::uint64_t)) return not_a_part;
  const std::size_t body = bytes.size() - sizeof(std::uint64_t);
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body, sizeof stored);
  if (XXH3_64bits(bytes.data(), body) != stored) return Error{"damaged: its checksum does not match (truncated or changed)"};

  const std::vector<std::byte> content(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(body));
  ByteReader in(content);
  Part part;
  std::uint64_t count = 0;
  if (!in.str(magic) || !in.u64(version) || !in.u64(order) || !in.str(part.kiln_version) || !in.str(part.toolchain) ||
      !in.str(part.fingerprint) || !in.u64(part.index) || !in.u64(part.count) || !in.u64(part.jobs) || !in.u64(count))
    return Error{"damaged: its header is cut short"};
  if (part.count == 0 || part.index == 0 || part.index > part.count)
    return Error{"damaged: shard " + std::to_string(part.index) + " of " + std::to_string(part.count)};
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string key;
    std::vector<std::byte> value;
    if (!in.str(key) || !in.blob(value)) return Error{"damaged: entry " + std::to_string(i + 1) + " is cut short"};
    part.entries.emplace(std::move(key), std::move(value));
  }
  if (!in.str(part.cut_by) || !in.u64(count)) return Error{"damaged: its cut is cut short"};
  for (std::uint64_t i = 0; i < count; ++i) {
    std::pair<std::string, std::string> job;
    std::uint64_t shard = 0;
    if (!in.str(job.first) || !in.str(job.second) || !in.u64(shard))
      return Error{"damaged: job " + std::to_string(i + 1) + " of its cut is cut short"};
    if (shard == 0 || shard > part.count) return Error{"damaged: its cut names shard " + std::to_string(shard)};
    part.cut.emplace(std::move(job), shard);
  }
  if (!in.at_end()) return Error{"damaged: bytes after its cut"};
  return part;
}

Result<Part> read_part(const std::filesystem::path& path) {
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return Error{"cannot read the part " + path.string() + ": " + bytes.error().message};
  Result<Part> part = decode_part(*bytes);
  if (!part) return Error{path.string() + ": " + part.error().message};
  return part;
}

}  // namespace kiln::shard
