// Where builds share compiled entries beyond this machine, from the environment. What every backend
// reads:
//
//   KILN_REMOTE_CACHE                   the server, as a URL whose scheme picks the backend
//                                       (backend_table.cpp; each backend's header says what its URL
//                                       and its own variables mean): http(s)://, redis://, ...
//   KILN_REMOTE_CACHE_MODE              read-write (default) or read: consumers that must never write
//   KILN_REMOTE_CACHE_TOKEN             a bearer token or password, as the backend uses one (printable ASCII)
//   KILN_REMOTE_CACHE_CONNECT_TIMEOUT   seconds to connect, default 2
//   KILN_REMOTE_CACHE_TIMEOUT           seconds for one whole request, default 60
//   KILN_REMOTE_CACHE_BUDGET            seconds one build may wait on the server in all, default 120: then
//                                       it stops asking (a slow server must not cost more than compiling)
//   KILN_REMOTE_CACHE_SIGNING_KEY       a file holding the secret key (signing_keys.hpp): entries written
//                                       are signed, and entries read must be signed with its public half
//   KILN_REMOTE_CACHE_VERIFY_KEY        the public key (base64, or a file holding it): an entry read must be
//                                       signed with it (entry_signing.hpp), else it is a miss; a build with
//                                       it and no signing key writes nothing to the server
//
// Unset or empty KILN_REMOTE_CACHE: no remote cache. A value that cannot be used is the user's mistake
// and fails the build before anything runs; a server that cannot be reached only costs a warning.
#pragma once

#include "remote/signing_keys.hpp"
#include "store/cache_settings.hpp"
#include "util/result.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kiln::remote {

enum class Mode { read, read_write };

class RemoteBackend;
struct RemoteSettings;
// Makes the backend a row of the table prepared (backend_table.hpp), with what it read of its URL;
// sends nothing.
using BackendOpener = std::function<std::unique_ptr<RemoteBackend>(const RemoteSettings&)>;

struct RemoteSettings {
  std::string scheme;       // the backend's row: "http", "redis", "s3"
  Mode mode = Mode::read_write;
  std::string mode_reason;  // when the backend made the cache read only: why ("no AWS credentials")
  std::string url;          // as given, credentials included: for the backend's client only
  std::string shown_url;    // the password replaced by "***": for every message
  std::string token;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds timeout{60000};
  std::chrono::milliseconds budget{120000};
  std::optional<SigningKey> signing_key;
  std::optional<VerifyKey> verify_key;
  BackendOpener open_backend;
};

// Nothing when KILN_REMOTE_CACHE is unset or empty. An error names the variable and its value (the
// password hidden): "KILN_REMOTE_CACHE=ftp://host/x: not a remote cache Kiln speaks (http://, ...)".
Result<std::optional<RemoteSettings>> remote_settings(const store::Environment& env);

const char* mode_name(Mode mode);

// The backend the settings name; nothing is sent until its first request.
std::unique_ptr<RemoteBackend> make_backend(const RemoteSettings& settings);

}  // namespace kiln::remote
