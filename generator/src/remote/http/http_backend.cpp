// The HTTP backend on libcurl (curl_session.hpp: one connection, bounded answers and time).
#include "remote/http/http_backend.hpp"

#include "remote/http/curl_session.hpp"
#include "remote/remote_backend.hpp"

#include <chrono>

namespace kiln::remote {

namespace {

class HttpBackend final : public RemoteBackend {
public:
  explicit HttpBackend(const RemoteSettings& settings) : m_session(settings.connect_timeout, settings.timeout) {
    std::string base = settings.url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    m_base = base + "/";
    std::string shown = settings.shown_url;
    while (!shown.empty() && shown.back() == '/') shown.pop_back();
    m_shown_base = shown + "/";
    if (!settings.token.empty())
      m_headers = curl_slist_append(m_headers, ("Authorization: Bearer " + settings.token).c_str());
  }

  ~HttpBackend() override { curl_slist_free_all(m_headers); }

  Reply get(std::string_view key, std::chrono::milliseconds limit) override {
    Reply reply;
    if (!start(key, reply, limit)) return reply;
    const long status = m_session.get(reply);
    if (status == 200) {
      reply.kind = Reply::Kind::found;
    } else if (status == 404 || status == 410) {
      reply.kind = Reply::Kind::absent;
      reply.bytes.clear();
    } else if (status > 0) {
      fail_with_status(status, key, reply);
    }
    return reply;
  }

  Reply put(std::string_view key, std::span<const std::byte> value, bool only_if_missing,
            std::chrono::milliseconds limit) override {
    Reply reply;
    const auto start_head = [&](std::chrono::milliseconds left) { return start(key, reply, left); };
    if (!m_session.needs_storing(only_if_missing, limit, reply, start_head)) return reply;
    if (!start(key, reply, limit)) return reply;
    const long status = m_session.put(value, reply);
    if (status >= 200 && status < 300)
      reply.kind = Reply::Kind::found;
    else if (status > 0)
      fail_with_status(status, key, reply);
    return reply;
  }

private:
  // A request of `key` that takes at most `limit`, with the bearer token if there is one.
  bool start(std::string_view key, Reply& reply, std::chrono::milliseconds limit) {
    const std::string object = std::string(key.substr(0, 2)) + "/" + std::string(key);
    CURL* curl = m_session.start(m_base + object, m_shown_base + object, limit, reply);
    if (!curl) return false;
    if (m_headers) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, m_headers);
    return true;
  }

  void fail_with_status(long status, std::string_view key, Reply& reply) const {
    reply.kind = Reply::Kind::failed;
    reply.message = "HTTP " + std::to_string(status) + " for " + shown_url(key);
    if (status == 401 || status == 403) reply.message += " (check KILN_REMOTE_CACHE_TOKEN or the URL's user:password)";
    if (status == 405 || status == 409) reply.message += " (does the server take PUT, and create directories?)";
    reply.bytes.clear();
  }

  std::string shown_url(std::string_view key) const {
    return m_shown_base + std::string(key.substr(0, 2)) + "/" + std::string(key);
  }

  CurlSession m_session;
  std::string m_base;
  std::string m_shown_base;
  curl_slist* m_headers = nullptr;
};

}  // namespace

Result<BackendOpener> prepare_http(const RemoteUrl&, const store::Environment&, RemoteSettings&) {
  return BackendOpener([](const RemoteSettings& settings) -> std::unique_ptr<RemoteBackend> {
    return std::make_unique<HttpBackend>(settings);
  });
}

}  // namespace kiln::remote
