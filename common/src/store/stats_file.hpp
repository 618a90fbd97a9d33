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

#include <filesystem>
#include <functional>

namespace kiln::store {

Counters read_stats(const std::filesystem::path& directory);

// Applies `change` to the counters under the lock. Errors (a read-only cache) are ignored, but
// false (errno set) says the lock could not be had and `change` was not called.
bool update_stats(const std::filesystem::path& directory, const std::function<void(Counters&)>& change);

// Writes `bytes` to <directory>/tmp and renames it to `path`, without fsync (a cache entry lost to a
// power cut is a miss). False when any step fails; the temporary file is then removed.
bool publish_file(const std::filesystem::path& directory, const std::filesystem::path& path,
                  std::span<const std::byte> bytes);

}  // namespace kiln::store
