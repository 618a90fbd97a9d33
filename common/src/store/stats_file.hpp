// The local store's counters, in <dir>/stats (written to disk: names are never reused for another
// meaning):
//
//   kiln-cache-stats 1\n
//   <name> <decimal value>\n ...        compile.hits, compile.misses, scan.hits, scan.misses,
//                                        size (bytes of entries), entries
//
// Changes are made under an flock of <dir>/stats.lock (released when its holder dies, so a killed
// build never blocks the next) and published by renaming a temporary file over the old one. A file
// that does not read counts as all zeros.
#pragma once

#include "store/store.hpp"

#include "util/result.hpp"

#include <chrono>
#include <filesystem>
#include <functional>

namespace kiln::store {

Counters read_stats(const std::filesystem::path& directory);

// How long update_stats waits for the lock: counters are worth no longer a wait, and another process
// that holds it for ever (any user who can read stats.lock can flock it) costs each update this much.
inline constexpr std::chrono::milliseconds k_stats_lock_wait{1000};

// Applies `change` to the counters under the lock. Errors writing (a read-only cache) are ignored; an
// error says why the lock could not be had (it could not be opened, stats.lock is a symbolic link,
// or another process held it for k_stats_lock_wait), and `change` was not called.
Status update_stats(const std::filesystem::path& directory, const std::function<void(Counters&)>& change);

// Writes `bytes` to <directory>/tmp and renames it to `path`, without fsync (a cache entry lost to a
// power cut is a miss). False when any step fails; the temporary file is then removed. Nothing is
// written through a symbolic link: where <directory>/tmp, or the folder `path` is in (a shard, when it
// is not `directory` itself), is a link or not a folder, nothing is written (the entry is a miss).
bool publish_file(const std::filesystem::path& directory, const std::filesystem::path& path,
                  std::span<const std::byte> bytes);

}  // namespace kiln::store
