// Scan results cached by content in the store (store/store.hpp): the key is the source's bytes and
// the scan flags; an entry is valid while every header it read has the content it had. Unchanged
// projects rescan in well under a second. Neither key nor entry holds a path as it lies: paths under
// the project, the build directory, Kiln's include directory and the toolkit are written by their
// names (util/named_roots.hpp), so a copy of the tree elsewhere hits. The value's format is described
// in scan_cache.cpp.
#pragma once

#include "scan/scanner.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::scan {

class ScanCache {
public:
  explicit ScanCache(store::Store& store);

  // A cached result for `input` whose headers are all unchanged, or nothing.
  std::optional<ScanResult> lookup(const ScanInput& input) const;
  // Stores a successful result (failed scans are never cached). Errors writing are ignored: a cache
  // that cannot be written only costs time.
  void store(const ScanInput& input, const ScanResult& result) const;

  // scan_source through the cache.
  ScanResult scan(const ScanInput& input) const;

  // resolve_requests through the cache: keyed by the source's key and the requests (names and
  // places); valid while the headers of `scanned` are unchanged.
  std::optional<Resolution> lookup_resolution(const ScanInput& source, const ScanResult& scanned,
                                              const std::vector<RuntimeRequest>& requests) const;
  Resolution resolve(const ScanInput& source, const ScanResult& scanned,
                     const std::vector<RuntimeRequest>& requests) const;

private:
  // A header's content hash, or nothing if it cannot be read. Remembered for the cache's lifetime
  // (one build): the sources of a project share most headers. Not thread-safe.
  std::optional<std::uint64_t> header_hash(const std::filesystem::path& path) const;
  // The result stored under `key` if its headers are unchanged.
  std::optional<ScanResult> read_valid(const std::string& key, const ScanInput& input) const;

  store::Store& m_store;
  mutable std::map<std::string, std::optional<std::uint64_t>> m_header_hashes;
};

}  // namespace kiln::scan
