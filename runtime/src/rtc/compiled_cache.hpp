// The cache of what the runtime compiles (kernels a package does not hold, programs from strings),
// looked up in layers: this process's memory, then the user's cache (the generator's content-addressed
// store, store/local_store.hpp, under the same variables: KILN_CACHE_DIR, $XDG_CACHE_HOME/kiln else
// ~/.cache/kiln, KILN_CACHE=0, KILN_CACHE_MAX_SIZE), then a compile.
//
// Never a failure: a cache directory that is missing, read-only or unnamed (no HOME) leaves the memory
// layer alone, with one warning per process on stderr; a damaged entry is a miss and the compile
// replaces it. No lock files: two processes that miss one key at once both compile and both publish
// (the store renames whole entries into place, so readers see one or the other). Threads of one
// process that miss one key at once compile once: the others wait for the first.
#pragma once

#include "store/cache_settings.hpp"
#include "store/local_store.hpp"
#include "util/result.hpp"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::rtc {

using Bytes = std::vector<std::byte>;
// The characters of `text` as bytes, for storing a text record.
Bytes bytes_of(std::string_view text);
using SharedBytes = std::shared_ptr<const Bytes>;

// What the runtime's caches did in this process (kiln_cache_get_stats; its package_hits are the
// core's, Package::package_hits, counted without this cache).
struct CacheCounters {
  std::atomic<std::uint64_t> memory_hits{0};       // found compiled earlier in this process
  std::atomic<std::uint64_t> disk_hits{0};         // read from the user's cache
  std::atomic<std::uint64_t> compiles{0};          // compiles that succeeded
  std::atomic<std::uint64_t> compile_failures{0};
  std::atomic<std::uint64_t> compiled_bytes{0};    // bytes of what the compiles produced
  std::atomic<std::uint64_t> disk_bytes_read{0};
};

// Where a value came from.
enum class Source { memory, disk, produced };

class CompiledCache {
public:
  // Produces the value of a key that no layer holds (compiles), or says why it cannot.
  using Produce = std::function<Result<Bytes>()>;
  // Whether bytes read back from the user's cache are usable (they decode as what was stored): a
  // sound store entry holding an unusable value is treated as damaged.
  using Check = std::function<bool(const Bytes&)>;

  // `settings` disabled or without a directory: memory only, and no warning when the user turned it
  // off (KILN_CACHE=0). `settings_error`: why the variables could not be read (warned once, memory only).
  CompiledCache(const store::CacheSettings& settings, std::string settings_error = {});
  // Adds the hits this object counted to the store's statistics (see m_unsaved_hits).
  ~CompiledCache();
  CompiledCache(const CompiledCache&) = delete;
  CompiledCache& operator=(const CompiledCache&) = delete;

  // The process's cache, configured from the environment on first use.
  static CompiledCache& process();

  // The value under `key`: from memory, else from the user's cache (kept in memory too), else
  // `produce`d, once per key however many threads ask, and stored in both layers. A failure to
  // produce is returned to every waiting thread and not cached (the next call tries again).
  Result<SharedBytes> get_or_produce(const std::string& key, const Produce& produce, const Check& check,
                                     Source* source = nullptr);
  // Looks up without producing (memory, then disk). `counted`: a hit counts in the counters (not for
  // records that only lead to an entry, such as a program's list of headers).
  std::optional<SharedBytes> find(const std::string& key, const Check& check, Source* source = nullptr,
                                  bool counted = true);
  // Stores `value` in both layers; returns it as kept.
  SharedBytes put(const std::string& key, Bytes value);
  // Counts a compile that produced `bytes`, here and in the store's statistics.
  void count_compile(std::uint64_t bytes);

  CacheCounters& counters() { return m_counters; }
  // The directory of the user's cache, or empty when only memory is used.
  std::filesystem::path directory() const;

private:
  struct Flight;
  store::LocalStore* disk();          // nullptr when only memory is used; warns once
  void persist_counters(const store::Counters& counters);

  store::CacheSettings m_settings;
  std::string m_settings_error;
  std::once_flag m_disk_once;
  std::unique_ptr<store::LocalStore> m_disk;

  std::mutex m_mutex;
  std::map<std::string, SharedBytes, std::less<>> m_memory;
  std::map<std::string, std::shared_ptr<Flight>, std::less<>> m_flights;
  CacheCounters m_counters;
  // Hits on disk, added to the store's statistics when this object goes (the process's: at exit), not
  // one locked statistics write per hit, which costs a hit as much as reading its entry.
  std::atomic<std::uint64_t> m_unsaved_hits{0};
};

}  // namespace kiln::rtc
