// The calls of cache_service.hpp over gRPC (libgrpc++, and the REAPI's messages in proto/): one
// channel per build, opened on the first call, every call with its deadline and the token.
//
// Bounded, whatever the server does: a call waits at most the settings' connect timeout to connect
// and ends by its deadline; an answer without a blob may be 64 KiB, a batch answer (holding one
// blob, at most k_default_batch_limit: larger blobs go by byte stream) that and 64 KiB, and any
// other message k_max_remote_entry_size and 64 KiB (the channel's limit); a byte stream read stops
// as soon as it passes the size the blob's digest promised.
//
// gRPC starts threads of its own, in this process only: worker processes forked after the channel
// opened never use it (layered_store.hpp), and leave by _exit, so neither its threads nor its locks
// matter to them.
#pragma once

#include "remote/reapi/cache_service.hpp"
#include "remote/reapi/reapi_backend.hpp"
#include "remote/remote_settings.hpp"

#include <memory>

namespace kiln::remote::reapi {

// `quiet_grpc`: gRPC's own log lines are dropped (the build reports the failures they repeat).
std::unique_ptr<CacheService> open_grpc_cache_service(const ReapiEndpoint& endpoint, const RemoteSettings& settings,
                                                      bool quiet_grpc);

}  // namespace kiln::remote::reapi
