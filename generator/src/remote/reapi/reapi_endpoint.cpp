#include "remote/reapi/reapi_backend.hpp"

#include "remote/reapi/action_cache_backend.hpp"
#include "remote/reapi/grpc_cache_service.hpp"
#include "util/file_io.hpp"

#include <array>
#include <filesystem>

namespace kiln::remote::reapi {

namespace {

// What a REAPI resource name uses as keywords: an instance name may not have them as a segment.
constexpr std::array<std::string_view, 7> k_reserved_segments{"blobs",      "uploads",      "actions", "actionResults",
                                                              "operations", "capabilities", "compressed-blobs"};

// The system's CA bundle, where the distributions put it: Debian and Ubuntu, Fedora and RHEL,
// openSUSE, Alpine.
constexpr std::array<const char*, 4> k_system_roots{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                                                    "/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem"};
constexpr std::uint64_t k_max_roots_size = 16 << 20;

Result<std::string> instance_of(const RemoteUrl& url) {
  std::string instance = url.path;
  while (!instance.empty() && instance.front() == '/') instance.erase(0, 1);
  while (!instance.empty() && instance.back() == '/') instance.pop_back();
  std::size_t start = 0;
  while (!instance.empty() && start <= instance.size()) {
    const std::size_t end = std::min(instance.find('/', start), instance.size());
    const std::string_view segment = std::string_view(instance).substr(start, end - start);
    if (segment.empty()) return url_error(url, "the instance name '" + instance + "' has an empty part");
    for (const std::string_view reserved : k_reserved_segments)
      if (segment == reserved)
        return url_error(url, "the instance name '" + instance + "' has a part '" + std::string(reserved) +
                                  "', which the REAPI keeps for its resource names");
    start = end + 1;
  }
  return instance;
}

// The roots a grpcs server's certificate must chain to: "" leaves gRPC to its own.
Result<std::string> root_certificates(const store::Environment& env) {
  if (const std::optional<std::string> file = env("SSL_CERT_FILE"); file && !file->empty()) {
    Result<std::vector<std::byte>> pem = read_regular_file(*file, k_max_roots_size, true);
    if (!pem) return Error{"SSL_CERT_FILE=" + *file + ": " + pem.error().message};
    return std::string(reinterpret_cast<const char*>(pem->data()), pem->size());
  }
  for (const char* path : k_system_roots) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) continue;
    if (Result<std::vector<std::byte>> pem = read_regular_file(path, k_max_roots_size, true))
      return std::string(reinterpret_cast<const char*>(pem->data()), pem->size());
  }
  return std::string();
}

}  // namespace

Result<ReapiEndpoint> reapi_endpoint(const RemoteUrl& url, const store::Environment& env) {
  if (!url.user.empty() || !url.password.empty())
    return url_error(url, "a gRPC cache takes no user or password in its URL; put a bearer token in KILN_REMOTE_CACHE_TOKEN");
  ReapiEndpoint endpoint;
  endpoint.tls = url.scheme == "grpcs";
  if (url.host.empty()) return url_error(url, "no host");
  Result<int> port = port_of(url, endpoint.tls ? k_default_grpcs_port : k_default_grpc_port);
  if (!port) return port.error();
  endpoint.target = url.host + ":" + std::to_string(*port);
  Result<std::string> instance = instance_of(url);
  if (!instance) return instance.error();
  endpoint.instance = std::move(*instance);
  if (endpoint.tls) {
    Result<std::string> roots = root_certificates(env);
    if (!roots) return roots.error();
    endpoint.root_certificates = std::move(*roots);
  }
  return endpoint;
}

}  // namespace kiln::remote::reapi

namespace kiln::remote {

Result<BackendOpener> prepare_reapi(const RemoteUrl& url, const store::Environment& env, RemoteSettings& /*settings*/) {
  Result<reapi::ReapiEndpoint> endpoint = reapi::reapi_endpoint(url, env);
  if (!endpoint) return endpoint.error();
  // gRPC's own log lines would repeat on stderr what the build says once; a user who asks gRPC for
  // them (GRPC_VERBOSITY, GRPC_TRACE) gets them.
  const std::optional<std::string> verbosity = env("GRPC_VERBOSITY");
  const std::optional<std::string> trace = env("GRPC_TRACE");
  const bool quiet = (!verbosity || verbosity->empty()) && (!trace || trace->empty());
  return BackendOpener([endpoint = std::move(*endpoint), quiet](const RemoteSettings& opened) -> std::unique_ptr<RemoteBackend> {
    return reapi::make_action_cache_backend(reapi::open_grpc_cache_service(endpoint, opened, quiet), opened);
  });
}

}  // namespace kiln::remote
