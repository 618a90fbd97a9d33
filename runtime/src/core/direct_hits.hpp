// Kernels compiled at run time earlier, by this process or another, answered by the loader alone:
// a direct record in the user's cache (store/direct_record.hpp), which the compile library wrote when
// it compiled or found the kernel, carries the compiled package and names the files whose change must
// be seen. When they are unchanged the loader takes the package from the record, one file read, and
// neither loads the compile library (nor, through it, NVRTC's files) nor reopens the package there.
// Anything else is left to the compile library, exactly as without records: it checks by content and
// writes the record again.
#pragma once

#include "format/package_reader.hpp"
#include "store/direct_record.hpp"
#include "store/entry_reader.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::core {

// Whether a direct record may answer: run-time compilation on (KILN_JIT, read once per process as the
// compile library reads it) and the user's cache on with a directory (KILN_CACHE, KILN_CACHE_DIR, ...).
bool direct_hits_enabled();

// A record found and checked, and the entry it was read from, which its package is a view into.
struct DirectHit {
  store::SharedEntry entry;
  store::DirectRecord record;
};
// The record for the kernel `name` (normalized) of the package `reader` for `target`, when its files
// are unchanged.
std::optional<DirectHit> find_direct_hit(const format::PackageReader& reader, const std::string& name,
                                         const std::string& target);

// Counts a hit on the user's cache of `bytes`, once the record read was taken; with KILN_LOG, says so
// on stderr as the compile library says of its hits.
void count_direct_hit(const std::string& expression, const std::string& target, std::uint64_t bytes);
// The loader's share of kiln_cache_stats' cache_hits and cache_bytes_read.
struct DirectHitCounters {
  std::uint64_t hits = 0, bytes_read = 0;
};
DirectHitCounters direct_hit_counters();

}  // namespace kiln::core
