#include "compile/compile_cache.hpp"

#include "util/byte_stream.hpp"
#include "util/file_io.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <sys/stat.h>

#include <algorithm>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t k_entry_version = 1;
// A verdict's value: u64 version | str inputs | headers as an entry's | str reason.
constexpr std::uint64_t k_verdict_version = 1;

std::string message_context(const CompileJob& job) {
  std::string context = job.display_prefix + "\n" + job.manifest_location + "\n";
  for (const Origin& o : job.expression_origins) context += o.file + ":" + std::to_string(o.line) + "\n";
  return context;
}

fs::path on_disk(const std::string& header, const CompileJob& job) {
  const fs::path path(header);
  return path.is_absolute() ? path : job.root / path;
}

bool changed_since(const fs::path& path, const struct timespec& start) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return true;
  for (const struct timespec& t : {info.st_mtim, info.st_ctim})
    if (t.tv_sec > start.tv_sec || (t.tv_sec == start.tv_sec && t.tv_nsec >= start.tv_nsec)) return true;
  return false;
}

// A link group's job names no file of its own: its members' sources are what it read.
bool sources_changed_since(const CompileJob& job, const struct timespec& start) {
  if (job.members.empty()) return changed_since(job.root / job.source, start);
  return std::any_of(job.members.begin(), job.members.end(),
                     [&](const CompileJob& member) { return changed_since(member.root / member.source, start); });
}

}  // namespace

CompileCache::CompileCache(store::Store& store, CacheContext context) : m_store(store), m_context(std::move(context)) {}

std::optional<std::uint64_t> CompileCache::content_hash(const std::string& path) {
  const auto [it, added] = m_hashes.try_emplace(path);
  if (added) {
    if (Result<std::vector<std::byte>> bytes = read_binary_file(path)) it->second = XXH3_64bits(bytes->data(), bytes->size());
  }
  return it->second;
}

bool CompileCache::headers_unchanged(ByteReader& in, std::uint64_t count, const CompileJob& job) {
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string token;
    std::uint64_t hash = 0;
    if (!in.str(token) || !in.u64(hash)) return false;
    const std::string header = expand_path(token, job.root, m_context.cuda_root);
    if (content_hash(on_disk(header, job).string()) != hash) return false;
  }
  return true;
}

bool CompileCache::write_headers(ByteWriter& out, std::vector<std::string>& headers, const CompileJob& job) {
  out.u64(headers.size());
  for (std::string& header : headers) {
    const fs::path path = on_disk(header, job);
    // A header edited during the build may not be what the compiler read.
    if (changed_since(path, m_context.build_start)) return false;
    const std::optional<std::uint64_t> hash = content_hash(path.string());
    if (!hash) return false;
    header = tokenize_path(header, job.root, m_context.cuda_root);
    out.str(header);
    out.u64(*hash);
  }
  return true;
}

std::optional<std::string> CompileCache::nvrtc_rejection(const CompileJob& nvrtc_job) {
  const std::optional<CompileKey> key = verdict_key(nvrtc_job, m_context);
  if (!key) return std::nullopt;
  const std::optional<std::vector<std::byte>> value = m_store.get(key->hex);
  if (!value) return std::nullopt;
  ByteReader in(*value);
  std::uint64_t version = 0, count = 0;
  std::string inputs, reason;
  if (!in.u64(version) || version != k_verdict_version || !in.str(inputs) || !in.u64(count)) return std::nullopt;
  if (!headers_unchanged(in, count, nvrtc_job) || !in.str(reason) || !in.at_end()) return std::nullopt;
  return reason;
}

void CompileCache::remember_nvrtc_rejection(const CompileJob& nvrtc_job, const std::string& reason,
                                            std::vector<std::string> headers) {
  if (sources_changed_since(nvrtc_job, m_context.build_start)) return;
  const std::optional<CompileKey> key = verdict_key(nvrtc_job, m_context);
  if (!key) return;
  ByteWriter out;
  out.u64(k_verdict_version);
  out.str(key->inputs);
  if (!write_headers(out, headers, nvrtc_job)) return;
  out.str(reason);
  const std::vector<std::byte> value = out.take();
  m_store.put(key->hex, value);
}

std::optional<CompileOutput> CompileCache::lookup(const CompileJob& job) {
  const std::optional<CompileKey> key = compile_key(job, m_context);
  if (!key) return std::nullopt;
  const std::optional<std::vector<std::byte>> value = m_store.get(key->hex);
  if (!value) return std::nullopt;
  ByteReader in(*value);
  std::uint64_t version = 0, count = 0;
  std::string inputs, context;
  if (!in.u64(version) || version != k_entry_version || !in.str(inputs) || !in.str(context) || !in.u64(count))
    return std::nullopt;
  if (!headers_unchanged(in, count, job)) return std::nullopt;
  std::vector<std::byte> serialized;
  CompileOutput output;
  if (!in.blob(serialized) || !in.at_end() || !deserialize(serialized, output)) return std::nullopt;
  if (!output.log.empty() && context != message_context(job)) return std::nullopt;
  for (std::string& header : output.headers) header = expand_path(header, job.root, m_context.cuda_root);
  output.seconds = 0;   // nothing was compiled
  return output;
}

void CompileCache::store(const CompileJob& job, const CompileOutput& output) {
  if (sources_changed_since(job, m_context.build_start)) return;
  const std::optional<CompileKey> key = compile_key(job, m_context);
  if (!key) return;
  ByteWriter out;
  out.u64(k_entry_version);
  out.str(key->inputs);
  out.str(message_context(job));
  CompileOutput stored = output;
  if (!write_headers(out, stored.headers, job)) return;
  const std::vector<std::byte> serialized = serialize(stored);
  out.bytes(serialized.data(), serialized.size());
  const std::vector<std::byte> value = out.take();
  m_store.put(key->hex, value);
}

}  // namespace kiln::compile
