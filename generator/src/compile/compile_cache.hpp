// The compile cache: a job's output from the store (store/store.hpp) when nothing that decides it has
// changed. The key (compile_key.hpp) covers what is known before compiling; the headers a compile
// read are known only after it, so the key leads to a list of header sets, each with the content
// hash of every header and the output compiled with them (ccache's direct mode and its manifests): a
// header edited and then restored finds its old output again. At most k_header_sets_per_key sets
// are kept per key, the most recently stored first.
//
// Two kinds of values, each written whole (the store publishes a value atomically: a racing reader
// sees the old list or the new one, never half of either). A build adds its set to the list it read
// when it looked the key up: two builds storing under one key at once may each drop the other's new
// set, which costs a compile later, never a wrong hit. Written to disk: bump k_entry_version on any
// change.
//
//   under the key:      u64 version | str inputs (what went into the key, for people)
//                       | u64 set count, each: str message context | u64 header count,
//                         each: str path | u64 XXH3-64 | str output key
//   under output key:   u64 version | CompileOutput as compile_job.hpp serializes it
//
// Nothing in a value depends on where the tree, the build or the toolkit lies (util/named_roots.hpp):
// header paths are <root>/, <build>/, <kiln>/, <cuda>/ or as the compiler named them, and messages
// are kept portable (portable_messages.hpp) and rendered for the build that reads them. A set whose
// output carries messages also records their context (the manifest entry and name origins they
// point at, as portable paths): it is a hit only for a job with the same context.
//
// NVRTC's verdict that it cannot compile a unit is a value of its own (nvrtc_rejection), under a key
// without the target (verdict_key), with the headers the unit reads (portable paths and content
// hashes) and NVRTC's first error instead of an output; it carries no message context, so a tree at
// any path uses it.
#pragma once

#include "compile/compile_key.hpp"
#include "store/store.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compile {

inline constexpr std::size_t k_header_sets_per_key = 8;

class CompileCache {
public:
  CompileCache(store::Store& store, CacheContext context);

  // The job a miss is compiled as, so that its messages can be stored portably: `job` with its
  // messages' display prefix replaced by a token (portable_messages.hpp).
  CompileJob portable_job(const CompileJob& job) const;
  // What a compile of portable_job(job) gave, with its messages as this build shows them.
  CompileOutput rendered(const CompileJob& job, CompileOutput portable) const;

  // A hit, rendered for `job`.
  std::optional<CompileOutput> lookup(const CompileJob& job);
  // Stores `output`, a compile of portable_job(job), unless the source or a header changed after
  // the build started (the output may then be of other content than the key says), or its key
  // cannot be made.
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
  // A file's content hash, remembered for the build (units share most headers); nothing if unreadable.
  std::optional<std::uint64_t> content_hash(const std::string& path);

  // The value under a key as lookup found it (nothing: absent), which store extends: a miss costs
  // one read of the key, also from a remote cache.
  std::optional<std::vector<std::byte>> key_value(const std::string& key);

  store::Store& m_store;
  CacheContext m_context;
  std::map<std::string, std::optional<std::uint64_t>> m_hashes;
  std::map<std::string, std::optional<std::vector<std::byte>>> m_key_values;
};

}  // namespace kiln::compile
