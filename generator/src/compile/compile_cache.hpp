// The compile cache: a job's output from the store (store/store.hpp) when nothing that decides it has
// changed. The key (compile_key.hpp) covers what is known before compiling; the entry adds every
// header the compile read with its content hash, and is a hit only while each header still has that
// content (ccache's direct mode, with one header list per key: an edited header replaces the entry).
//
// The value (written to disk: bump k_entry_version on any change):
//   u64 version | str inputs (what went into the key, for people) | str message context
//   | u64 header count, each: str path (<root>/, <cuda>/ or as the compiler named it), u64 XXH3-64
//   | CompileOutput as compile_job.hpp serializes it, headers written as above
//
// Messages in a log name files as seen from where kiln ran and the manifest entry of the source: an
// entry whose log is not empty is a hit only for the same message context.
#pragma once

#include "compile/compile_key.hpp"
#include "store/store.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace kiln::compile {

class CompileCache {
public:
  CompileCache(store::Store& store, CacheContext context);

  std::optional<CompileOutput> lookup(const CompileJob& job);
  // Stores `output` unless the source or a header changed after the build started (the output may
  // then be of other content than the key says), or its key cannot be made.
  void store(const CompileJob& job, const CompileOutput& output);

private:
  // A file's content hash, remembered for the build (units share most headers); nothing if unreadable.
  std::optional<std::uint64_t> content_hash(const std::string& path);

  store::Store& m_store;
  CacheContext m_context;
  std::map<std::string, std::optional<std::uint64_t>> m_hashes;
};

}  // namespace kiln::compile
