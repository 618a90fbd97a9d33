#include "remote/backend_table.hpp"
#include "remote/redis/redis_backend.hpp"
#include "remote/remote_backend.hpp"
#include "remote/remote_settings.hpp"

#include <gtest/gtest.h>

#include <map>

namespace kiln::remote {
namespace {

using Variables = std::map<std::string, std::string>;

Result<std::optional<RemoteSettings>> settings_of(const Variables& variables) {
  return remote_settings([&](const char* name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  });
}

RemoteSettings parsed(const Variables& variables) {
  Result<std::optional<RemoteSettings>> result = settings_of(variables);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  EXPECT_TRUE(result.ok() && result->has_value());
  return result.ok() && result->has_value() ? **result : RemoteSettings{};
}

std::string error_of(const Variables& variables) {
  Result<std::optional<RemoteSettings>> result = settings_of(variables);
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.error().message;
}

TEST(RemoteSettings, UnsetOrEmptyMeansNoRemoteCache) {
  Result<std::optional<RemoteSettings>> unset = settings_of({});
  ASSERT_TRUE(unset.ok());
  EXPECT_FALSE(unset->has_value());
  Result<std::optional<RemoteSettings>> empty = settings_of({{"KILN_REMOTE_CACHE", ""}, {"KILN_REMOTE_CACHE_MODE", "x"}});
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

TEST(RemoteSettings, HttpWithDefaults) {
  const RemoteSettings s = parsed({{"KILN_REMOTE_CACHE", "http://cache.example:8080/kiln/"}});
  EXPECT_EQ(s.scheme, "http");
  EXPECT_EQ(s.mode, Mode::read_write);
  EXPECT_EQ(s.url, "http://cache.example:8080/kiln/");
  EXPECT_EQ(s.shown_url, s.url);
  EXPECT_EQ(s.connect_timeout, std::chrono::milliseconds(2000));
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(60000));
  EXPECT_EQ(s.budget, std::chrono::milliseconds(120000));
  EXPECT_FALSE(s.signing_key || s.verify_key);
  EXPECT_EQ(parsed({{"KILN_REMOTE_CACHE", "https://cache.example/x"}}).scheme, "https");
  EXPECT_EQ(parsed({{"KILN_REMOTE_CACHE", "HTTP://cache.example/x"}}).scheme, "http");
}

TEST(RemoteSettings, ThePasswordIsNeverShown) {
  const RemoteSettings s = parsed({{"KILN_REMOTE_CACHE", "http://ci:hunter2@cache.example/kiln"}});
  EXPECT_EQ(s.url, "http://ci:hunter2@cache.example/kiln");   // the client needs it
  EXPECT_EQ(s.shown_url.find("hunter2"), std::string::npos);
  EXPECT_NE(s.shown_url.find("ci:***@cache.example"), std::string::npos) << s.shown_url;
  const std::string error = error_of({{"KILN_REMOTE_CACHE", "ftp://ci:hunter2@cache.example/kiln"}});
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
}

RedisAddress redis_of(const std::string& url, const std::string& token = "") {
  Result<RemoteUrl> parts = parse_remote_url(url);
  EXPECT_TRUE(parts.ok()) << (parts.ok() ? "" : parts.error().message);
  if (!parts) return {};
  Result<RedisAddress> address = redis_address(*parts, token);
  EXPECT_TRUE(address.ok()) << (address.ok() ? "" : address.error().message);
  return address.ok() ? *address : RedisAddress{};
}

TEST(RemoteSettings, RedisParts) {
  EXPECT_EQ(parsed({{"KILN_REMOTE_CACHE", "redis://127.0.0.1"}}).scheme, "redis");
  const RedisAddress plain = redis_of("redis://127.0.0.1");
  EXPECT_EQ(plain.host, "127.0.0.1");
  EXPECT_EQ(plain.port, 6379);
  EXPECT_EQ(plain.database, 0);
  EXPECT_TRUE(plain.password.empty());
  const RedisAddress full = redis_of("redis://kiln:p%40ss@cache:7000/3");
  EXPECT_EQ(full.host, "cache");
  EXPECT_EQ(full.port, 7000);
  EXPECT_EQ(full.database, 3);
  EXPECT_EQ(full.user, "kiln");
  EXPECT_EQ(full.password, "p@ss");
  EXPECT_EQ(parsed({{"KILN_REMOTE_CACHE", "redis://kiln:p%40ss@cache:7000/3"}}).shown_url.find("p%40ss"),
            std::string::npos);
  // The token is the AUTH password when the URL has none.
  EXPECT_EQ(redis_of("redis://cache", "t").password, "t");
  EXPECT_EQ(redis_of("redis://:u@cache", "t").password, "u");
  EXPECT_EQ(error_of({{"KILN_REMOTE_CACHE", "redis://cache:0"}}), "KILN_REMOTE_CACHE=redis://cache:0: port 0 is not 1 to 65535");
}

// Every row of the table prepares a backend from a bare URL (no port, path or credentials), sending nothing.
TEST(RemoteSettings, EveryBackendOfTheTableOpensFromItsForm) {
  ASSERT_FALSE(backend_table().empty());
  for (const BackendRow& row : backend_table()) {
    EXPECT_EQ(find_backend(row.scheme), &row);
    EXPECT_NE(known_schemes().find(std::string(row.scheme) + "://"), std::string::npos) << row.scheme;
    EXPECT_EQ(row.form.substr(0, row.scheme.size() + 3), std::string(row.scheme) + "://") << row.form;
    const RemoteSettings s = parsed({{"KILN_REMOTE_CACHE", std::string(row.scheme) + "://cache.example"}});
    EXPECT_EQ(s.scheme, row.scheme);
    ASSERT_TRUE(s.open_backend) << row.scheme;
    EXPECT_NE(make_backend(s), nullptr) << row.scheme;
  }
  EXPECT_EQ(find_backend("ftp"), nullptr);
}

TEST(RemoteSettings, ModeTokenAndTimeouts) {
  const RemoteSettings s = parsed({{"KILN_REMOTE_CACHE", "http://c/k"},
                                   {"KILN_REMOTE_CACHE_MODE", "read"},
                                   {"KILN_REMOTE_CACHE_TOKEN", "abc"},
                                   {"KILN_REMOTE_CACHE_CONNECT_TIMEOUT", "0.25"},
                                   {"KILN_REMOTE_CACHE_TIMEOUT", "5"},
                                   {"KILN_REMOTE_CACHE_BUDGET", "30"}});
  EXPECT_EQ(s.mode, Mode::read);
  EXPECT_EQ(s.token, "abc");
  EXPECT_EQ(s.connect_timeout, std::chrono::milliseconds(250));
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(5000));
  EXPECT_EQ(s.budget, std::chrono::milliseconds(30000));
  EXPECT_EQ(parsed({{"KILN_REMOTE_CACHE", "http://c/k"}, {"KILN_REMOTE_CACHE_MODE", "read-write"}}).mode,
            Mode::read_write);
}

TEST(RemoteSettings, MistakesNameTheVariableAndValue) {
  EXPECT_EQ(error_of({{"KILN_REMOTE_CACHE", "ftp://c/k"}}),
            "KILN_REMOTE_CACHE=ftp://c/k: not a remote cache Kiln speaks (" + known_schemes() + ")");
  EXPECT_NE(error_of({{"KILN_REMOTE_CACHE", "cache.example/kiln"}}).find("KILN_REMOTE_CACHE="), std::string::npos);
  EXPECT_NE(error_of({{"KILN_REMOTE_CACHE", "http://c/k?x=1"}}).find("no query or fragment"), std::string::npos);
  EXPECT_NE(error_of({{"KILN_REMOTE_CACHE", "redis://c/db1"}}).find("'/db1' is not a database number"), std::string::npos);
  EXPECT_EQ(error_of({{"KILN_REMOTE_CACHE", "http://c/k"}, {"KILN_REMOTE_CACHE_MODE", "rw"}}),
            "KILN_REMOTE_CACHE_MODE=rw: not read (never write) or read-write");
  for (const char* bad : {"0", "-1", "soon", "1e9", "2s"})
    EXPECT_EQ(error_of({{"KILN_REMOTE_CACHE", "http://c/k"}, {"KILN_REMOTE_CACHE_TIMEOUT", bad}}),
              std::string("KILN_REMOTE_CACHE_TIMEOUT=") + bad + ": not a number of seconds (above 0, at most 86400)");
  EXPECT_EQ(error_of({{"KILN_REMOTE_CACHE", "http://c/k"}, {"KILN_REMOTE_CACHE_BUDGET", "0"}}),
            "KILN_REMOTE_CACHE_BUDGET=0: not a number of seconds (above 0, at most 86400)");
  EXPECT_NE(error_of({{"KILN_REMOTE_CACHE", "http://c/k"}, {"KILN_REMOTE_CACHE_CONNECT_TIMEOUT", "x"}})
                .find("KILN_REMOTE_CACHE_CONNECT_TIMEOUT=x"),
            std::string::npos);
}

// The token goes into a header (HTTP's, S3's and gRPC's "Authorization: Bearer"): a line break in it
// would end that header and add one of its own, whatever the backend.
TEST(RemoteSettings, ATokenThatCannotBeAHeaderValueIsRefusedUnshown) {
  for (const char* url : {"http://c/k", "https://c/k", "grpc://c/main"}) {
    for (const char* token : {"t\r\nX-Evil: 1", "t\nX: 1", "t\x7f", "t\x01", "caf\xc3\xa9"}) {
      const std::string error = error_of({{"KILN_REMOTE_CACHE", url}, {"KILN_REMOTE_CACHE_TOKEN", token}});
      EXPECT_NE(error.find("KILN_REMOTE_CACHE_TOKEN: has a character that a header cannot carry"), std::string::npos)
          << url << ": " << error;
      EXPECT_EQ(error.find("X-Evil"), std::string::npos) << error;
    }
  }
  EXPECT_EQ(parsed({{"KILN_REMOTE_CACHE", "http://c/k"}, {"KILN_REMOTE_CACHE_TOKEN", "eyJhbGciOi.J-_9 ~"}}).token,
            "eyJhbGciOi.J-_9 ~");
}

}  // namespace
}  // namespace kiln::remote
