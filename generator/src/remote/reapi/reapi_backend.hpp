// Bazel's Remote Execution API v2 cache, over gRPC: the action cache and content-addressable storage
// that bazel-remote, BuildBuddy, Buildbarn, NativeLink and BuildGrid serve.
//
//   KILN_REMOTE_CACHE=grpc://host[:port][/instance]    plain; port 9092 (bazel-remote's) unless given
//   KILN_REMOTE_CACHE=grpcs://host[:port][/instance]   TLS; port 443 unless given
//
// The instance name is the URL's path as written (percent escapes are not decoded), without its
// leading and trailing '/' ("" when none): "main", "projects/p/instances/default". KILN_REMOTE_CACHE_TOKEN is sent with every call as the metadata
// "authorization: Bearer <token>"; a user or password in the URL is refused (gRPC has no basic auth:
// the token is the way). A grpcs server's certificate must chain to the system's roots: the PEM file
// SSL_CERT_FILE names, else the system's bundle (/etc/ssl/certs/ca-certificates.crt and the other
// distributions' places), else gRPC's own.
//
// An entry is stored as the spec has a client store any action's result: the key's Action and
// Command and the entry's blob in the CAS, then the result in the action cache, whose one output file
// is the blob (digests.hpp names them all; the calls: action_cache_backend.hpp). Nothing a server
// sends is trusted: a blob must match its digest, and every answer is bounded by
// k_max_remote_entry_size and each call's time limit (grpc_cache_service.hpp).
#pragma once

#include "remote/remote_settings.hpp"
#include "remote/remote_url.hpp"
#include "store/cache_settings.hpp"

#include <string>

namespace kiln::remote::reapi {

inline constexpr int k_default_grpc_port = 9092;
inline constexpr int k_default_grpcs_port = 443;

// Where the calls go, from the URL and the environment.
struct ReapiEndpoint {
  std::string target;              // "host:port", as gRPC dials it
  std::string instance;            // the instance name: "" or "main"
  bool tls = false;                // grpcs://
  std::string root_certificates;   // grpcs: PEM of the roots; "" for gRPC's own
};

// An error names the variable and its value: a user or password in the URL, a bad port, an instance
// name the REAPI cannot carry, an SSL_CERT_FILE that cannot be read. (The token, checked with the
// other settings, is the settings' own: remote_settings.hpp.)
Result<ReapiEndpoint> reapi_endpoint(const RemoteUrl& url, const store::Environment& env);

}  // namespace kiln::remote::reapi

namespace kiln::remote {

Result<BackendOpener> prepare_reapi(const RemoteUrl& url, const store::Environment& env, RemoteSettings& settings);

}  // namespace kiln::remote
