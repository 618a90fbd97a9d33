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
//
// NVRTC's verdict that it cannot compile a unit is an entry of its own (nvrtc_rejection), under a key
// without the target (verdict_key), with the same header list and NVRTC's first error instead of an
// output; it carries no message context, so a tree at any path uses it.
#pragma once

#include "compile/compile_key.hpp"
#include "store/store.hpp"
#include "util/byte_stream.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compile {

class CompileCache {
public:
  CompileCache(store::Store& store, CacheContext context);

  std::optional<CompileOutput> lookup(const CompileJob& job);
  // Stores `output` unless the source or a header changed after the build started (the output may
  // then be of other content than the key says), or its key cannot be made.
  void store(const CompileJob& job, const CompileOutput& output);

  // NVRTC's verdict that it cannot compile the unit of `nvrtc_job` (a header it cannot open: the unit
  // goes to nvcc), remembered by content alone (verdict_key: no target, no directory, no message
  // context) and by the headers the unit reads: the reason NVRTC gave (its first error, with paths as
  // the compile named them), or nothing.
  std::optional<std::string> nvrtc_rejection(const CompileJob& nvrtc_job);
  // `headers`: what the unit read (nvcc's compiles of it list them; NVRTC's failed one lists none).
  void remember_nvrtc_rejection(const CompileJob& nvrtc_job, const std::string& reason,
                                std::vector<std::string> headers);

private:
  // Reads `count` headers of an entry: whether each still has its recorded content.
  bool headers_unchanged(ByteReader& in, std::uint64_t count, const CompileJob& job);
  // Writes `headers` with their content hashes, tokenizing them in place; false when one changed
  // since the build started or cannot be read (nothing is then stored).
  bool write_headers(ByteWriter& out, std::vector<std::string>& headers, const CompileJob& job);

  // A file's content hash, remembered for the build (units share most headers); nothing if unreadable.
  std::optional<std::uint64_t> content_hash(const std::string& path);

  store::Store& m_store;
  CacheContext m_context;
  std::map<std::string, std::optional<std::uint64_t>> m_hashes;
};

}  // namespace kiln::compile
