#include "core/direct_hits.hpp"

#include "core/compile_library.hpp"
#include "core/image_choice.hpp"
#include "format/layout.hpp"
#include "store/cache_settings.hpp"
#include "store/entry_reader.hpp"
#include "util/printable.hpp"
#include "util/switch_words.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kiln::core {

namespace {

std::atomic<std::uint64_t> g_hits{0};
std::atomic<std::uint64_t> g_bytes_read{0};

// KILN_JIT as the compile library reads it (rtc::CompilerSettings): std::getenv, an off word.
bool compiling_off() {
  const char* value = std::getenv("KILN_JIT");
  return value != nullptr && is_off_word(value);
}

// The user's cache as the compile library's cache reads it (rtc::CompiledCache::process), once, with
// its directory as UTF-8 text, which the entries' paths are made from.
const store::CacheSettingsText& cache() {
  static const store::CacheSettingsText settings = [] {
    Result<store::CacheSettingsText> read = store::cache_settings_text(store::process_environment());
    return read ? *read : store::CacheSettingsText{false, {}, 0};   // the compile library says why
  }();
  return settings;
}

}  // namespace

bool direct_hits_enabled() {
  static const bool enabled = !compiling_off() && cache().enabled && !cache().directory.empty();
  return enabled;
}

std::optional<DirectHit> find_direct_hit(const format::PackageReader& reader, const std::string& name,
                                         const std::string& target) {
  if (!direct_hits_enabled()) return std::nullopt;
  format::FileHeader header;
  if (reader.bytes().size() < sizeof header) return std::nullopt;
  std::memcpy(&header, reader.bytes().data(), sizeof header);   // checked when the package was opened
  const std::string query =
      store::direct_query({header.toc_checksum, header.file_size, name, target, compiler_search_directories()});
  std::optional<store::SharedEntry> entry = store::read_shared_entry_utf8(cache().directory, store::direct_key(query));
  if (!entry) return std::nullopt;
  std::optional<store::DirectRecord> record = store::decode_direct_record(entry->payload);
  if (!record || record->query != query || !store::files_unchanged(*record)) return std::nullopt;
  return DirectHit{std::move(*entry), std::move(*record)};
}

void count_direct_hit(const std::string& expression, const std::string& target, std::uint64_t bytes) {
  g_hits.fetch_add(1, std::memory_order_relaxed);
  g_bytes_read.fetch_add(bytes, std::memory_order_relaxed);
  static const bool log = RuntimeOptions::from_environment().log;
  // The compile library's words for a hit (jit/src/rtc/run_log.cpp); names are data, escaped.
  if (log) {
    std::fprintf(stderr, "kiln: %s for %s: compiled at run time earlier (the user cache)\n",
                 printable(expression).c_str(), printable(target).c_str());
  }
}

DirectHitCounters direct_hit_counters() {
  return {g_hits.load(std::memory_order_relaxed), g_bytes_read.load(std::memory_order_relaxed)};
}

}  // namespace kiln::core
