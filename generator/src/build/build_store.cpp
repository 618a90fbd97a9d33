#include "build/build_store.hpp"

#include "remote/layered_store.hpp"
#include "remote/remote_settings.hpp"
#include "store/local_store.hpp"
#include "util/diagnostic.hpp"

namespace kiln::build {

Result<BuildStores> open_build_stores(const store::CacheSettings& cache, const store::Environment& env,
                                      WarnFn warn) {
  Result<std::optional<remote::RemoteSettings>> remote = remote::remote_settings(env);
  if (!remote) return remote.error();
  BuildStores stores{store::make_null_store(), nullptr};
  if (!cache.enabled) return stores;   // KILN_CACHE=0: no cache of any kind
  auto directory = std::make_unique<store::LocalStore>(cache.directory, cache.max_size);
  if (const Status writable = directory->check_writable(); !writable)
    warn(diagnostic(Location{}, "warning",
                    "cannot write the cache directory " + cache.directory.string() + ": " + writable.error().message +
                        (*remote ? "; building with the remote cache alone" : "; building without the cache")));
  else
    stores.local = std::move(directory);
  if (!*remote) return stores;
  stores.remote = std::make_unique<remote::LayeredStore>(*stores.local, remote::make_backend(**remote),
                                                         std::move(**remote), std::move(warn));
  return stores;
}

std::string remote_summary(const store::Store& store) {
  const auto* layered = dynamic_cast<const remote::LayeredStore*>(&store);
  if (!layered) return "";
  store::Counters counts = layered->remote_counters();
  return "remote cache: " + std::to_string(counts["remote.hits"]) + " hits, " + std::to_string(counts["remote.misses"]) +
         " misses (" + std::to_string(counts["remote.damaged"]) + " damaged, " +
         std::to_string(counts["remote.untrusted"]) + " untrusted), " + std::to_string(counts["remote.errors"]) +
         " errors, " + std::to_string(counts["remote.writes"]) + " writes" +
         (layered->mode_reason().empty() ? "" : "; read only: " + layered->mode_reason());
}

}  // namespace kiln::build
