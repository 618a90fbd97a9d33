// KILN_REMOTE_CACHE=grpc://... and grpcs://...: what the REAPI backend reads of its URL and the
// environment, and the mistakes it names (generator/src/remote/reapi/reapi_backend.hpp).
#include "remote/backend_table.hpp"
#include "remote/reapi/reapi_backend.hpp"
#include "remote/remote_backend.hpp"
#include "remote/remote_settings.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace kiln::remote::reapi {
namespace {

namespace fs = std::filesystem;
using ReapiVariables = std::map<std::string, std::string>;

store::Environment environment_of(const ReapiVariables& variables) {
  return [variables](const char* name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  };
}

Result<ReapiEndpoint> endpoint_of(const std::string& given, const ReapiVariables& variables = {}) {
  Result<RemoteUrl> url = parse_remote_url(given);
  if (!url) return url.error();
  return reapi_endpoint(*url, environment_of(variables));
}

ReapiEndpoint endpoint(const std::string& given, const ReapiVariables& variables = {}) {
  Result<ReapiEndpoint> result = endpoint_of(given, variables);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : ReapiEndpoint{};
}

// The whole of KILN_REMOTE_CACHE's reading, as a build does it: the error's message.
std::string settings_error(const ReapiVariables& variables) {
  Result<std::optional<RemoteSettings>> result = remote_settings(environment_of(variables));
  EXPECT_FALSE(result.ok());
  return result.ok() ? "" : result.error().message;
}

class TemporaryPem {
public:
  explicit TemporaryPem(const std::string& text)
      : m_path(fs::temp_directory_path() / ("kiln-reapi-roots-" + std::to_string(std::random_device{}()) + ".pem")) {
    std::ofstream(m_path) << text;
  }
  ~TemporaryPem() { fs::remove(m_path); }
  std::string path() const { return m_path.string(); }

private:
  fs::path m_path;
};

TEST(ReapiSettings, PlainUrlWithPortAndInstance) {
  const ReapiEndpoint e = endpoint("grpc://cache.example:8980/main");
  EXPECT_EQ(e.target, "cache.example:8980");
  EXPECT_EQ(e.instance, "main");
  EXPECT_FALSE(e.tls);
  EXPECT_TRUE(e.root_certificates.empty());
}

TEST(ReapiSettings, DefaultPortsAndNoInstance) {
  EXPECT_EQ(endpoint("grpc://cache.example").target, "cache.example:" + std::to_string(k_default_grpc_port));
  EXPECT_EQ(endpoint("grpc://cache.example").instance, "");
  EXPECT_EQ(endpoint("grpc://cache.example/").instance, "");
  EXPECT_EQ(k_default_grpc_port, 9092);   // bazel-remote's, as the documentation says
  const ReapiEndpoint secure = endpoint("grpcs://cache.example/main");
  EXPECT_EQ(secure.target, "cache.example:443");
  EXPECT_TRUE(secure.tls);
  EXPECT_EQ(endpoint("GRPCS://cache.example").target, "cache.example:443");
  EXPECT_EQ(endpoint("grpc://[::1]:9000/x").target, "[::1]:9000");
}

TEST(ReapiSettings, InstanceNamesMayHaveSeveralParts) {
  EXPECT_EQ(endpoint("grpc://h/projects/p/instances/default").instance, "projects/p/instances/default");
  EXPECT_EQ(endpoint("grpc://h/main/").instance, "main");
  EXPECT_EQ(endpoint("grpc://h/a%20b").instance, "a%20b");   // as written
}

TEST(ReapiSettings, InstanceNamesTheProtocolCannotCarryAreRefused) {
  Result<ReapiEndpoint> reserved = endpoint_of("grpc://h/main/blobs");
  ASSERT_FALSE(reserved.ok());
  EXPECT_EQ(reserved.error().message,
            "KILN_REMOTE_CACHE=grpc://h/main/blobs: the instance name 'main/blobs' has a part 'blobs', which the REAPI "
            "keeps for its resource names");
  for (const char* url : {"grpc://h/uploads", "grpc://h/a/actionResults/b", "grpc://h/compressed-blobs"})
    EXPECT_FALSE(endpoint_of(url).ok()) << url;
  Result<ReapiEndpoint> empty_part = endpoint_of("grpc://h/a//b");
  ASSERT_FALSE(empty_part.ok());
  EXPECT_NE(empty_part.error().message.find("has an empty part"), std::string::npos) << empty_part.error().message;
}

TEST(ReapiSettings, CredentialsInTheUrlAreRefusedAndNeverShown) {
  const std::string error = settings_error({{"KILN_REMOTE_CACHE", "grpc://ci:hunter2@cache.example/main"}});
  EXPECT_NE(error.find("KILN_REMOTE_CACHE=grpc://ci:***@cache.example/main"), std::string::npos) << error;
  EXPECT_NE(error.find("put a bearer token in KILN_REMOTE_CACHE_TOKEN"), std::string::npos) << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  EXPECT_FALSE(endpoint_of("grpcs://ci@cache.example/main").ok());
}

TEST(ReapiSettings, BadPorts) {
  EXPECT_EQ(settings_error({{"KILN_REMOTE_CACHE", "grpc://cache:0/main"}}),
            "KILN_REMOTE_CACHE=grpc://cache:0/main: port 0 is not 1 to 65535");
  EXPECT_FALSE(endpoint_of("grpcs://cache:65536").ok());
}

TEST(ReapiSettings, TheTokenMustFitAHeaderAndIsNeverShown) {
  Result<std::optional<RemoteSettings>> ok = remote_settings(
      environment_of({{"KILN_REMOTE_CACHE", "grpc://h/main"}, {"KILN_REMOTE_CACHE_TOKEN", "eyJhbGciOi.J-_9"}}));
  ASSERT_TRUE(ok.ok() && ok->has_value());
  EXPECT_EQ((*ok)->token, "eyJhbGciOi.J-_9");
  const std::string error =
      settings_error({{"KILN_REMOTE_CACHE", "grpc://h/main"}, {"KILN_REMOTE_CACHE_TOKEN", "sekrit\nX-Evil: 1"}});
  EXPECT_NE(error.find("KILN_REMOTE_CACHE_TOKEN: has a character that a header cannot carry"), std::string::npos)
      << error;
  EXPECT_EQ(error.find("sekrit"), std::string::npos) << error;
  EXPECT_NE(settings_error({{"KILN_REMOTE_CACHE", "grpc://h/main"}, {"KILN_REMOTE_CACHE_TOKEN", "caf\xc3\xa9"}})
                .find("cannot carry"),
            std::string::npos);
}

TEST(ReapiSettings, TlsRootsFromSslCertFile) {
  const TemporaryPem pem("-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n");
  const ReapiEndpoint e = endpoint("grpcs://cache.example/main", {{"SSL_CERT_FILE", pem.path()}});
  EXPECT_EQ(e.root_certificates, "-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n");
  // Plain gRPC reads no roots, and so cannot fail on them.
  EXPECT_TRUE(endpoint("grpc://cache.example/main", {{"SSL_CERT_FILE", "/nonexistent/roots.pem"}}).root_certificates.empty());
  const std::string error = settings_error({{"KILN_REMOTE_CACHE", "grpcs://cache.example/main"},
                                            {"SSL_CERT_FILE", "/nonexistent/roots.pem"}});
  EXPECT_EQ(error.rfind("SSL_CERT_FILE=/nonexistent/roots.pem: ", 0), 0u) << error;
}

TEST(ReapiSettings, TheSystemsRootsWithoutSslCertFile) {
  // This machine's bundle (Debian's ca-certificates) where it has one; gRPC's own roots where not.
  const ReapiEndpoint e = endpoint("grpcs://cache.example/main");
  if (fs::exists("/etc/ssl/certs/ca-certificates.crt")) {
    EXPECT_NE(e.root_certificates.find("-----BEGIN CERTIFICATE-----"), std::string::npos);
  }
}

TEST(ReapiSettings, BothSchemesAreRowsOfTheTable) {
  for (const char* scheme : {"grpc", "grpcs"}) {
    const BackendRow* row = find_backend(scheme);
    ASSERT_NE(row, nullptr) << scheme;
    EXPECT_EQ(row->prepare, &prepare_reapi);
    EXPECT_NE(known_schemes().find(std::string(scheme) + "://"), std::string::npos);
  }
  Result<std::optional<RemoteSettings>> settings = remote_settings(environment_of(
      {{"KILN_REMOTE_CACHE", "grpc://127.0.0.1:1/main"}, {"KILN_REMOTE_CACHE_MODE", "read"}}));
  ASSERT_TRUE(settings.ok() && settings->has_value());
  EXPECT_EQ((*settings)->scheme, "grpc");
  EXPECT_EQ((*settings)->mode, Mode::read);
  EXPECT_NE(make_backend(**settings), nullptr);   // connects on its first request, not before
}

}  // namespace
}  // namespace kiln::remote::reapi
