// Kiln's entries in a REAPI cache, over the calls of cache_service.hpp (digests.hpp says how they are
// named). A get asks the action cache for the key's action, then reads the blob its result names and
// checks it against its digest: bytes that do not match are a failed reply, never an entry. A put
// stores the entry's blob and the key's Command and Action (those the server lacks: one
// FindMissingBlobs for the three) before the action result that names them, as the spec asks and
// servers that check results require; with only_if_missing it first asks whether the action has a
// result, and leaves one whose blob the CAS has.
#pragma once

#include "remote/reapi/cache_service.hpp"
#include "remote/remote_backend.hpp"
#include "remote/remote_settings.hpp"

#include <memory>

namespace kiln::remote::reapi {

std::unique_ptr<RemoteBackend> make_action_cache_backend(std::unique_ptr<CacheService> service,
                                                         const RemoteSettings& settings);

}  // namespace kiln::remote::reapi
