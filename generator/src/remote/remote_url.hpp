// KILN_REMOTE_CACHE's URL taken apart once, by libcurl's URL parser, for every backend: each backend
// then reads the parts it needs (backend_table.hpp) and says which of them it cannot use.
#pragma once

#include "util/result.hpp"

#include <string>

namespace kiln::remote {

struct RemoteUrl {
  std::string variable = "KILN_REMOTE_CACHE";   // the variable that gave it, for messages
  std::string given;      // as given, credentials included: for the client alone
  std::string shown;      // the password replaced by "***": for every message
  std::string scheme;     // lower case: "http", "s3", "grpcs"
  std::string user;       // percent-decoded
  std::string password;   // percent-decoded
  std::string host;       // an S3 URL's bucket
  std::string port;       // as written, "" when none
  std::string path;       // as written, with its leading '/', "" when none
};

// An error names the variable and the URL, the password hidden: "KILN_REMOTE_CACHE=http://[x: Bad IPv6 address".
// A query or a fragment is refused: no backend takes one. `variable`: another variable that holds a
// URL a backend reads (the S3 backend's AWS_ENDPOINT_URL).
Result<RemoteUrl> parse_remote_url(const std::string& given, const char* variable = "KILN_REMOTE_CACHE");

// The port of `url`, `fallback` when it has none; an error (with the URL shown) when it is not 1 to 65535.
Result<int> port_of(const RemoteUrl& url, int fallback);

// "KILN_REMOTE_CACHE=<shown URL>: <why>" (or the URL's own variable): how a backend refuses part of its URL.
Error url_error(const RemoteUrl& url, const std::string& why);

}  // namespace kiln::remote
