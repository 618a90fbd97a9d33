#include "compile/compile_cache.hpp"

#include "compile/portable_messages.hpp"
#include "util/byte_stream.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <sys/stat.h>

#include <algorithm>
#include <vector>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t k_entry_version = 2;   // 2: header sets, portable messages
// A verdict's value: u64 version | str inputs | u64 header count, each: str path | u64 XXH3-64 | str reason.
constexpr std::uint64_t k_verdict_version = 1;

struct HeaderSet {
  std::string context;                          // portable_context, for an output with messages; else ""
  std::vector<std::pair<std::string, std::uint64_t>> headers;   // portable path, content hash
  std::string output_key;
};

struct KeyEntry {
  std::string inputs;
  std::vector<HeaderSet> sets;                  // the most recently stored first
};

std::optional<KeyEntry> read_key_entry(const std::vector<std::byte>& value) {
  ByteReader in(value);
  std::uint64_t version = 0, count = 0;
  KeyEntry entry;
  if (!in.u64(version) || version != k_entry_version || !in.str(entry.inputs) || !in.u64(count)) return std::nullopt;
  for (std::uint64_t i = 0; i < count; ++i) {
    HeaderSet set;
    std::uint64_t headers = 0;
    if (!in.str(set.context) || !in.u64(headers)) return std::nullopt;
    for (std::uint64_t k = 0; k < headers; ++k) {
      std::string path;
      std::uint64_t hash = 0;
      if (!in.str(path) || !in.u64(hash)) return std::nullopt;
      set.headers.emplace_back(std::move(path), hash);
    }
    if (!in.str(set.output_key)) return std::nullopt;
    entry.sets.push_back(std::move(set));
  }
  if (!in.at_end()) return std::nullopt;
  return entry;
}

std::vector<std::byte> write_key_entry(const KeyEntry& entry) {
  ByteWriter out;
  out.u64(k_entry_version);
  out.str(entry.inputs);
  out.u64(entry.sets.size());
  for (const HeaderSet& set : entry.sets) {
    out.str(set.context);
    out.u64(set.headers.size());
    for (const auto& [path, hash] : set.headers) {
      out.str(path);
      out.u64(hash);
    }
    out.str(set.output_key);
  }
  return out.take();
}

// The output's own key: the job's key with the set that decided it.
std::string output_key(const std::string& key, const HeaderSet& set) {
  Hasher h(Hasher::Dump::skip);
  h.add("compile_output", key);
  h.add("context", set.context);
  for (const auto& [path, hash] : set.headers) h.add(path, hex64(hash));
  return h.hex_digest();
}

fs::path on_disk(const fs::path& header, const CompileJob& job) {
  return header.is_absolute() ? header : job.root / header;
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

std::optional<std::vector<std::byte>> CompileCache::key_value(const std::string& key) {
  const auto [it, added] = m_key_values.try_emplace(key);
  if (added) it->second = m_store.get(key);
  return it->second;
}

CompileJob CompileCache::portable_job(const CompileJob& job) const { return with_display_token(job); }

CompileOutput CompileCache::rendered(const CompileJob& job, CompileOutput portable) const {
  portable.log = rendered_log(portable.log, job, named_roots(job, m_context));
  return portable;
}

std::optional<CompileOutput> CompileCache::lookup(const CompileJob& job) {
  const std::optional<CompileKey> key = compile_key(job, m_context);
  if (!key) return std::nullopt;
  const std::optional<std::vector<std::byte>> value = key_value(key->hex);
  if (!value) return std::nullopt;
  const std::optional<KeyEntry> entry = read_key_entry(*value);
  if (!entry) return std::nullopt;
  const NamedRoots roots = named_roots(job, m_context);
  std::optional<std::string> context;   // made only when a set with messages asks for it
  for (const HeaderSet& set : entry->sets) {
    if (!set.context.empty()) {
      if (!context) context = portable_context(job, roots);
      if (set.context != *context) continue;
    }
    const bool unchanged = std::all_of(set.headers.begin(), set.headers.end(), [&](const auto& header) {
      return content_hash(on_disk(roots.expand(header.first), job).string()) == header.second;
    });
    if (!unchanged) continue;
    // An output that is gone (trimmed) or damaged is no hit: the next store writes it again.
    const std::optional<std::vector<std::byte>> stored = m_store.get(set.output_key);
    if (!stored) continue;
    ByteReader in(*stored);
    std::uint64_t version = 0;
    std::vector<std::byte> serialized;
    CompileOutput output;
    if (!in.u64(version) || version != k_entry_version || !in.blob(serialized) || !in.at_end() ||
        !deserialize(serialized, output))
      continue;
    for (std::string& header : output.headers) header = roots.expand(header).string();
    output.recorded_seconds = output.seconds;   // what it cost once: sharded builds cut by it
    output.seconds = 0;                         // nothing was compiled
    return rendered(job, std::move(output));
  }
  return std::nullopt;
}

void CompileCache::store(const CompileJob& job, const CompileOutput& output) {
  if (sources_changed_since(job, m_context.build_start)) return;
  const std::optional<CompileKey> key = compile_key(job, m_context);
  if (!key) return;
  const NamedRoots roots = named_roots(job, m_context);
  HeaderSet set;
  CompileOutput stored = output;
  stored.log = portable_log(output.log, roots);
  if (!stored.log.empty()) set.context = portable_context(job, roots);
  for (std::string& header : stored.headers) {
    const fs::path path = on_disk(header, job);
    // A header edited during the build may not be what the compiler read.
    if (changed_since(path, m_context.build_start)) return;
    const std::optional<std::uint64_t> hash = content_hash(path.string());
    if (!hash) return;
    header = roots.tokenize(header);
    set.headers.emplace_back(header, *hash);
  }
  set.output_key = output_key(key->hex, set);
  ByteWriter value;
  value.u64(k_entry_version);
  const std::vector<std::byte> serialized = serialize(stored);
  value.bytes(serialized.data(), serialized.size());
  // The output first: a reader that finds the set finds its output.
  m_store.put(set.output_key, value.take());

  KeyEntry entry;
  if (const std::optional<std::vector<std::byte>> old = key_value(key->hex))
    if (std::optional<KeyEntry> read = read_key_entry(*old)) entry = std::move(*read);
  entry.inputs = key->inputs;
  std::erase_if(entry.sets, [&](const HeaderSet& s) { return s.output_key == set.output_key; });
  entry.sets.insert(entry.sets.begin(), std::move(set));
  if (entry.sets.size() > k_header_sets_per_key) entry.sets.resize(k_header_sets_per_key);
  std::vector<std::byte> written = write_key_entry(entry);
  m_store.put(key->hex, written);
  m_key_values[key->hex] = std::move(written);
}

std::optional<std::string> CompileCache::nvrtc_rejection(const CompileJob& nvrtc_job) {
  const std::optional<CompileKey> key = verdict_key(nvrtc_job, m_context);
  if (!key) return std::nullopt;
  const std::optional<std::vector<std::byte>> value = m_store.get(key->hex);
  if (!value) return std::nullopt;
  const NamedRoots roots = named_roots(nvrtc_job, m_context);
  ByteReader in(*value);
  std::uint64_t version = 0, count = 0;
  std::string inputs, reason;
  if (!in.u64(version) || version != k_verdict_version || !in.str(inputs) || !in.u64(count)) return std::nullopt;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::string path;
    std::uint64_t hash = 0;
    if (!in.str(path) || !in.u64(hash)) return std::nullopt;
    if (content_hash(on_disk(roots.expand(path), nvrtc_job).string()) != hash) return std::nullopt;
  }
  if (!in.str(reason) || !in.at_end()) return std::nullopt;
  return reason;
}

void CompileCache::remember_nvrtc_rejection(const CompileJob& nvrtc_job, const std::string& reason,
                                            std::vector<std::string> headers) {
  if (sources_changed_since(nvrtc_job, m_context.build_start)) return;
  const std::optional<CompileKey> key = verdict_key(nvrtc_job, m_context);
  if (!key) return;
  const NamedRoots roots = named_roots(nvrtc_job, m_context);
  ByteWriter out;
  out.u64(k_verdict_version);
  out.str(key->inputs);
  out.u64(headers.size());
  for (const std::string& header : headers) {
    const fs::path path = on_disk(header, nvrtc_job);
    // A header edited during the build may not be what the compiler read.
    if (changed_since(path, m_context.build_start)) return;
    const std::optional<std::uint64_t> hash = content_hash(path.string());
    if (!hash) return;
    out.str(roots.tokenize(header));
    out.u64(*hash);
  }
  out.str(reason);
  const std::vector<std::byte> value = out.take();
  m_store.put(key->hex, value);
}

}  // namespace kiln::compile
