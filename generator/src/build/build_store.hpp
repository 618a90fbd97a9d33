// The store a build reads and writes: the user's local cache (unless KILN_CACHE=0), with the remote
// cache behind it when KILN_REMOTE_CACHE names one (remote/layered_store.hpp). Compiled images and
// scan results go through both; a scan entry's key holds the kiln executable's build ID and the
// project's absolute directory, so machines share those only with the same kiln and paths.
#pragma once

#include "store/cache_settings.hpp"
#include "store/store.hpp"
#include "util/result.hpp"

#include <functional>
#include <memory>
#include <string>

namespace kiln::build {

using WarnFn = std::function<void(const std::string&)>;

struct BuildStores {
  std::unique_ptr<store::Store> local;    // a null store when there is no local cache
  std::unique_ptr<store::Store> remote;   // `local`, then the server; null without a remote cache
  store::Store& shared() const { return remote ? *remote : *local; }
};

// An error only for settings a user must fix (KILN_REMOTE_CACHE=ftp://...). A local directory that
// cannot be written is a warning through `warn`, and the build goes on with the remote cache alone, or
// none.
Result<BuildStores> open_build_stores(const store::CacheSettings& cache, const store::Environment& env,
                                         WarnFn warn);

// "remote cache: 26 hits, 0 misses (0 damaged, 0 untrusted), 0 errors, 0 writes" for -v, then "; read
// only: <why>" when the backend made the cache read only (an S3 cache without credentials); "" when
// `store` has no remote side.
std::string remote_summary(const store::Store& store);

}  // namespace kiln::build
