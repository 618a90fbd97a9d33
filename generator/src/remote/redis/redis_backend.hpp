// Redis (hiredis): KILN_REMOTE_CACHE=redis://[[user]:password@]host[:port][/db], port 6379 and database 0
// unless given. Entries are the strings kiln:<key>; KILN_REMOTE_CACHE_TOKEN is the AUTH password when the
// URL has none.
#pragma once

#include "remote/remote_settings.hpp"
#include "remote/remote_url.hpp"
#include "store/cache_settings.hpp"

#include <string>

namespace kiln::remote {

struct RedisAddress {
  std::string host;
  int port = 6379;
  int database = 0;
  std::string user;
  std::string password;
};

// The server a redis:// URL names; an error says which part cannot be used.
Result<RedisAddress> redis_address(const RemoteUrl& url, const std::string& token);

Result<BackendOpener> prepare_redis(const RemoteUrl& url, const store::Environment& env, RemoteSettings& settings);

}  // namespace kiln::remote
