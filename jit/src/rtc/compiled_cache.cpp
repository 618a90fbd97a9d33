#include "rtc/compiled_cache.hpp"
#include "util/diagnostic.hpp"
#include "util/printable.hpp"

#include <cstdio>
#include <span>

namespace kiln::rtc {

Bytes bytes_of(std::string_view text) {
  const auto bytes = std::as_bytes(std::span(text.data(), text.size()));
  return Bytes(bytes.begin(), bytes.end());
}

// One compile in progress: the threads that miss the same key wait on it.
struct CompiledCache::Flight {
  std::condition_variable done_signal;
  bool done = false;
  std::optional<Result<SharedBytes>> outcome;
};

CompiledCache::CompiledCache(const store::CacheSettings& settings, std::string settings_error)
    : m_settings(settings), m_settings_error(std::move(settings_error)) {}

CompiledCache::~CompiledCache() {
  if (const std::uint64_t hits = m_unsaved_hits.exchange(0); hits > 0 && m_disk) m_disk->add_counters({{"runtime.hits", hits}});
}

CompiledCache& CompiledCache::process() {
  static CompiledCache* cache = [] {
    Result<store::CacheSettings> settings = store::cache_settings({}, store::process_environment());
    if (!settings) return new CompiledCache(store::CacheSettings{false, {}, 0}, settings.error().message);
    return new CompiledCache(*settings);
  }();  // never destroyed: packages may be released from static destructors of other modules
  // ... but its hits are saved at exit.
  static const struct SaveHitsAtExit {
    ~SaveHitsAtExit() {
      if (const std::uint64_t hits = cache->m_unsaved_hits.exchange(0); hits > 0 && cache->m_disk)
        cache->m_disk->add_counters({{"runtime.hits", hits}});
    }
  } save_hits_at_exit;
  return *cache;
}

std::filesystem::path CompiledCache::directory() const {
  return m_disk ? m_disk->directory() : std::filesystem::path();
}

store::LocalStore* CompiledCache::disk() {
  std::call_once(m_disk_once, [this] {
    std::string why;
    if (!m_settings_error.empty()) {
      why = m_settings_error;
    } else if (!m_settings.enabled) {
      if (!m_settings.directory.empty()) return;   // KILN_CACHE=0: the user's choice, said nowhere
      why = "no cache directory: neither KILN_CACHE_DIR nor the user's cache location (XDG_CACHE_HOME or HOME; "
            "LOCALAPPDATA on Windows) is set";
    } else {
      auto store = std::make_unique<store::LocalStore>(m_settings.directory, m_settings.max_size);
      const Status writable = store->check_writable();
      if (writable) {
        m_disk = std::move(store);
        return;
      }
      why = "cannot write the cache directory " + m_settings.directory.string() + ": " + writable.error().message;
    }
    const std::string warning =
        diagnostic(Location{}, "warning", why + "; kernels compiled at run time are kept in memory only");
    std::fprintf(stderr, "%s\n", printable(warning).c_str());
  });
  return m_disk.get();
}

void CompiledCache::persist_counters(const store::Counters& counters) {
  if (store::LocalStore* store = disk()) store->add_counters(counters);
}

std::optional<SharedBytes> CompiledCache::find(const std::string& key, const Check& check, Source* source,
                                               bool counted) {
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_memory.find(key); it != m_memory.end()) {
      if (counted) ++m_counters.memory_hits;
      if (source) *source = Source::memory;
      return it->second;
    }
  }
  store::LocalStore* store = disk();
  if (!store) return std::nullopt;
  std::optional<Bytes> stored = store->get(key);
  if (!stored || !check(*stored)) return std::nullopt;   // absent or damaged: a miss the caller replaces
  if (counted) {
    ++m_counters.disk_hits;
    m_counters.disk_bytes_read += stored->size();
    ++m_unsaved_hits;
  }
  if (source) *source = Source::disk;
  auto shared = std::make_shared<const Bytes>(std::move(*stored));
  std::lock_guard lock(m_mutex);
  return m_memory.emplace(key, shared).first->second;
}

SharedBytes CompiledCache::put(const std::string& key, Bytes value) {
  auto shared = std::make_shared<const Bytes>(std::move(value));
  if (store::LocalStore* store = disk()) store->put(key, *shared);
  std::lock_guard lock(m_mutex);
  m_memory[key] = shared;
  return shared;
}

void CompiledCache::count_compile(std::uint64_t bytes) {
  ++m_counters.compiles;
  m_counters.compiled_bytes += bytes;
  persist_counters({{"runtime.compiles", 1}, {"runtime.compiled_bytes", bytes}});
}

Result<SharedBytes> CompiledCache::get_or_produce(const std::string& key, const Produce& produce, const Check& check,
                                                  Source* source) {
  std::shared_ptr<Flight> flight;
  {
    std::unique_lock lock(m_mutex);
    if (auto it = m_memory.find(key); it != m_memory.end()) {
      ++m_counters.memory_hits;
      if (source) *source = Source::memory;
      return it->second;
    }
    if (auto it = m_flights.find(key); it != m_flights.end()) {
      // Another thread is on it: wait for its outcome rather than compiling the same thing again.
      std::shared_ptr<Flight> running = it->second;
      running->done_signal.wait(lock, [&] { return running->done; });
      if (source) *source = Source::memory;
      return *running->outcome;
    }
    flight = std::make_shared<Flight>();
    m_flights.emplace(key, flight);
  }

  std::optional<Result<SharedBytes>> outcome;
  Source from = Source::disk;
  try {
    if (std::optional<SharedBytes> found = find(key, check, &from)) {
      outcome = *found;
    } else {
      from = Source::produced;
      Result<Bytes> produced = produce();
      if (produced) {
        count_compile(produced->size());
        outcome = put(key, std::move(*produced));
      } else {
        ++m_counters.compile_failures;
        outcome = produced.error();
      }
    }
  } catch (...) {
    // Waiting threads must not wait forever for a compile that threw (out of memory).
    std::lock_guard lock(m_mutex);
    flight->outcome = Result<SharedBytes>(Error{"internal error while compiling at run time"});
    flight->done = true;
    m_flights.erase(key);
    flight->done_signal.notify_all();
    throw;
  }
  std::lock_guard lock(m_mutex);
  flight->outcome = outcome;
  flight->done = true;
  m_flights.erase(key);
  flight->done_signal.notify_all();
  if (source) *source = from;
  return *outcome;
}

}  // namespace kiln::rtc
