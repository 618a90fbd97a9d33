// Where builds share compiled entries beyond this machine, from the environment:
//
//   KILN_REMOTE_CACHE                   http://[user:password@]host[:port]/prefix (or https://): entries are
//                                       GET/HEAD/PUT as <prefix>/<k0k1>/<key>, the layout nginx's WebDAV and
//                                       ccache's HTTP backend take; redis://[[user]:password@]host[:port][/db]:
//                                       entries are the strings kiln:<key>
//   KILN_REMOTE_CACHE_MODE              read-write (default) or read: consumers that must never write
//   KILN_REMOTE_CACHE_TOKEN             sent as "Authorization: Bearer <token>" (HTTP); Redis: the AUTH
//                                       password when the URL has none
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
#include <optional>
#include <string>

namespace kiln::remote {

enum class Protocol { http, redis };
enum class Mode { read, read_write };

struct RemoteSettings {
  Protocol protocol = Protocol::http;
  Mode mode = Mode::read_write;
  std::string url;          // as given, credentials included: for the HTTP client only
  std::string shown_url;    // the password replaced by "***": for every message
  std::string token;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds timeout{60000};
  std::chrono::milliseconds budget{120000};
  std::optional<SigningKey> signing_key;
  std::optional<VerifyKey> verify_key;
  // Redis: the parts of the URL.
  std::string host;
  int port = 6379;
  int database = 0;
  std::string user;
  std::string password;
};

// Nothing when KILN_REMOTE_CACHE is unset or empty. An error names the variable and its value (the
// password hidden): "KILN_REMOTE_CACHE=ftp://host/x: not an http://, https:// or redis:// URL".
Result<std::optional<RemoteSettings>> remote_settings(const store::Environment& env);

const char* mode_name(Mode mode);

}  // namespace kiln::remote
