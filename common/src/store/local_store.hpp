// The store as a directory, one per user by default (cache_settings.hpp), shared by concurrent builds:
//
//   <dir>/CACHEDIR.TAG        marks the directory as a cache for backup tools
//   <dir>/<k0k1>/<key>        an entry (entry_format.hpp), under the first two hex digits of its key
//   <dir>/tmp/                entries being written (.<key>.tmp-<pid>-XXXXXX), renamed into place
//   <dir>/stats, stats.lock   counters and the store's size (stats_file.hpp)
//
// Publication is atomic (a temporary file renamed over the entry), so readers see a whole entry or
// none; a writer that is killed leaves only its temporary file, which the next store to write to the
// directory (its first put, or trim) removes once its owner is gone (its pid runs nothing and its
// flock is free): a process that only reads, as a run-time cache hit does, never lists tmp/. A hit
// sets the entry's modification time (when it is older than a minute): eviction removes the least
// recently used entries first, when a put takes the store over its maximum size (down to 90% of it)
// or on `kiln cache trim`.
#pragma once

#include "store/store.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace kiln::store {

struct Usage {
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
};

class LocalStore final : public Store {
public:
  // `max_size` 0: no limit. Nothing is created until the first put.
  LocalStore(std::filesystem::path directory, std::uint64_t max_size);

  std::optional<std::vector<std::byte>> get(std::string_view key) override;
  void put(std::string_view key, std::span<const std::byte> value) override;
  void add_counters(const Counters& counters) override;

  const std::filesystem::path& directory() const { return m_directory; }
  // Whether entries can be written under the directory (creating it if needed): IO_ERROR saying
  // why not ("Not a directory", "Permission denied") otherwise. A store that cannot be written only
  // misses, and a build says so once rather than compiling everything again in silence.
  Status check_writable() const;
  std::filesystem::path entry_path(std::string_view key) const;

  // The counters and the store's size as recorded (cheap; exact after trim or clear).
  Counters counters() const;
  // Counts the entries on disk (walks the directory).
  Usage usage() const;
  // Removes least recently used entries until at most `limit` bytes remain (0: remove none), and
  // temporary files of writers that are gone; records the exact size. Returns what was removed.
  Usage trim(std::uint64_t limit);
  // Removes every entry and zeroes the counters; never follows a link out of the directory (a
  // shard directory that is a symbolic link is removed as a link). What it could not remove, or
  // the counters it could not zero, are in `failures`, each naming the path and the reason.
  struct Cleared {
    Usage removed;
    std::uint64_t harvest_records = 0;   // what the run-time fallback noted for kiln harvest (harvest_record.hpp)
    std::vector<std::string> failures;
  };
  Cleared clear();

private:
  std::filesystem::path m_directory;
  std::uint64_t m_max_size;
  std::once_flag m_stale_removed;   // by the first put
};

}  // namespace kiln::store
