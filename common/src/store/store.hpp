// The content-addressed store behind every Kiln cache: the compile cache (compile/compile_cache.hpp),
// the scan cache (scan/scan_cache.hpp) and, later, the runtime's fallback cache and remote backends.
// A key is 32 hex digits (a tagged XXH3-128, util/hasher.hpp) that the caller derives from every input
// that decides the value; the store knows nothing about what the bytes mean. A backend must be safe
// under concurrent processes: a reader sees a whole entry or none, never half of one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::store {

// Named counters ("compile.hits", "scan.misses"): what one build adds, or what the store holds.
using Counters = std::map<std::string, std::uint64_t>;

class Store {
public:
  virtual ~Store() = default;
  // The value stored under `key`, or nothing: absent, damaged (a failed checksum is a miss, and the
  // next put replaces the entry), unreadable, or not what an entry can be (not a regular file, or
  // larger than k_max_entry_size: entry_format.hpp), which is never read. A hit counts as a use for
  // eviction (LRU).
  virtual std::optional<std::vector<std::byte>> get(std::string_view key) = 0;
  // Stores `value` under `key`, replacing what was there; a value larger than k_max_payload_size is
  // not stored. Failing to write only costs time, so errors are swallowed: a read-only or full cache
  // never fails a build.
  virtual void put(std::string_view key, std::span<const std::byte> value) = 0;
  // Adds a build's counters to the store's statistics (`kiln cache stats`).
  virtual void add_counters(const Counters& counters) = 0;
};

// A store that holds nothing (KILN_CACHE=0): every get misses, every put is dropped.
std::unique_ptr<Store> make_null_store();

}  // namespace kiln::store
