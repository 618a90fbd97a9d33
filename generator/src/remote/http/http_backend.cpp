// The HTTP backend on libcurl: one easy handle, so that a build's requests share one connection.
#include "remote/http/http_backend.hpp"

#include "remote/entry_signing.hpp"
#include "remote/remote_backend.hpp"
#include "store/size_spec.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>

namespace kiln::remote {

namespace {

// A response body, kept (GET) or only counted (PUT), and cut off past `limit` bytes.
struct Body {
  std::vector<std::byte>* kept = nullptr;
  std::size_t limit = 0;
  std::size_t seen = 0;
  bool too_large = false;
};

std::size_t take_body(char* data, std::size_t size, std::size_t count, void* out) {
  auto* body = static_cast<Body*>(out);
  const std::size_t n = size * count;
  if (n > body->limit - body->seen) {
    body->too_large = true;
    return 0;   // libcurl ends the transfer: CURLE_WRITE_ERROR
  }
  body->seen += n;
  if (!body->kept) return n;
  std::vector<std::byte>& bytes = *body->kept;
  // Grown by doubling, and to the limit at once where doubling would pass half of it (never twice
  // near the limit): an endless body costs at most 1.5 times `limit` while the last copy is made.
  if (bytes.size() + n > bytes.capacity()) {
    const std::size_t doubled = std::max(bytes.capacity() * 2, bytes.size() + n);
    bytes.reserve(doubled > body->limit / 2 ? body->limit : doubled);
  }
  const auto* begin = reinterpret_cast<const std::byte*>(data);
  bytes.insert(bytes.end(), begin, begin + n);
  return n;
}

// What a server may say in answer to a PUT: a status page, not an entry.
constexpr std::size_t k_max_put_answer = 1 << 20;

struct Upload {
  std::span<const std::byte> value;
  std::size_t sent = 0;
};

std::size_t read_body(char* data, std::size_t size, std::size_t count, void* in) {
  auto* upload = static_cast<Upload*>(in);
  const std::size_t n = std::min(size * count, upload->value.size() - upload->sent);
  std::memcpy(data, upload->value.data() + upload->sent, n);
  upload->sent += n;
  return n;
}

bool no_answer(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
      return true;
    default:
      return false;
  }
}

class HttpBackend final : public RemoteBackend {
public:
  explicit HttpBackend(const RemoteSettings& settings) : m_settings(settings) {
    static std::once_flag initialized;
    std::call_once(initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    std::string base = settings.url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    m_base = base + "/";
    std::string shown = settings.shown_url;
    while (!shown.empty() && shown.back() == '/') shown.pop_back();
    m_shown_base = shown + "/";
    m_curl = curl_easy_init();
    if (!settings.token.empty())
      m_headers = curl_slist_append(m_headers, ("Authorization: Bearer " + settings.token).c_str());
  }

  ~HttpBackend() override {
    if (m_curl) curl_easy_cleanup(m_curl);
    curl_slist_free_all(m_headers);
  }

  Reply get(std::string_view key, std::chrono::milliseconds limit) override {
    Reply reply;
    if (!prepare(key, reply, limit)) return reply;
    Body body{&reply.bytes, k_max_remote_entry_size};
    curl_easy_setopt(m_curl, CURLOPT_HTTPGET, 1L);
    // A Content-Length above it is refused before the body is read.
    curl_easy_setopt(m_curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(k_max_remote_entry_size));
    curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, take_body);
    curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, &body);
    const long status = perform(key, reply, body);
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
    const auto started = std::chrono::steady_clock::now();
    if (only_if_missing) {
      if (!prepare(key, reply, limit)) return reply;
      Body none{nullptr, k_max_put_answer};   // a HEAD has no body; a server that sends one anyway
      curl_easy_setopt(m_curl, CURLOPT_NOBODY, 1L);
      const long status = perform(key, reply, none);
      if (status == 200) {
        reply.kind = Reply::Kind::found;
        return reply;
      }
      if (status == 0) return reply;
      // Anything else (404, or a server that refuses HEAD): store it.
    }
    // One limit for both requests.
    limit -= std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    if (!prepare(key, reply, limit)) return reply;
    Upload upload{value};
    curl_easy_setopt(m_curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(m_curl, CURLOPT_READFUNCTION, read_body);
    curl_easy_setopt(m_curl, CURLOPT_READDATA, &upload);
    curl_easy_setopt(m_curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(value.size()));
    Body answer{nullptr, k_max_put_answer};
    curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, take_body);
    curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, &answer);
    const long status = perform(key, reply, answer);
    if (status >= 200 && status < 300)
      reply.kind = Reply::Kind::found;
    else if (status > 0)
      fail_with_status(status, key, reply);
    return reply;
  }

private:
  // Resets the handle (keeping its connection) for a request of `key` that takes at most `limit`.
  bool prepare(std::string_view key, Reply& reply, std::chrono::milliseconds limit) {
    if (!m_curl) {
      reply.kind = Reply::Kind::unreachable;
      reply.message = "cannot start libcurl";
      return false;
    }
    if (limit.count() <= 0) {
      reply.kind = Reply::Kind::unreachable;
      reply.message = "no time left for " + shown_url(key);
      return false;
    }
    curl_easy_reset(m_curl);
    const std::string url = m_base + std::string(key.substr(0, 2)) + "/" + std::string(key);
    curl_easy_setopt(m_curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(m_curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(m_curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(m_settings.connect_timeout, limit).count()));
    curl_easy_setopt(m_curl, CURLOPT_TIMEOUT_MS, static_cast<long>(std::min(m_settings.timeout, limit).count()));
    curl_easy_setopt(m_curl, CURLOPT_USERAGENT, "kiln");
    curl_easy_setopt(m_curl, CURLOPT_ERRORBUFFER, m_error);
    if (m_headers) curl_easy_setopt(m_curl, CURLOPT_HTTPHEADER, m_headers);
    m_error[0] = '\0';
    return true;
  }

  // The HTTP status, or 0 after filling `reply` with why there is none.
  long perform(std::string_view key, Reply& reply, const Body& body) {
    const CURLcode code = curl_easy_perform(m_curl);
    if (code == CURLE_FILESIZE_EXCEEDED || (code == CURLE_WRITE_ERROR && body.too_large)) {
      reply.kind = Reply::Kind::failed;
      reply.message = "the answer for " + shown_url(key) + " is larger than any entry (more than " +
                      store::format_size(body.limit) + "); refused";
      reply.bytes.clear();
      reply.bytes.shrink_to_fit();
      return 0;
    }
    if (code != CURLE_OK) {
      reply.kind = no_answer(code) ? Reply::Kind::unreachable : Reply::Kind::failed;
      reply.message = std::string(m_error[0] ? m_error : curl_easy_strerror(code)) + " (" + shown_url(key) + ")";
      reply.bytes.clear();
      return 0;
    }
    long status = 0;
    curl_easy_getinfo(m_curl, CURLINFO_RESPONSE_CODE, &status);
    return status;
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

  RemoteSettings m_settings;
  std::string m_base;
  std::string m_shown_base;
  CURL* m_curl = nullptr;
  curl_slist* m_headers = nullptr;
  char m_error[CURL_ERROR_SIZE] = {};
};

}  // namespace

Result<BackendOpener> prepare_http(const RemoteUrl&, const store::Environment&, RemoteSettings&) {
  return BackendOpener([](const RemoteSettings& settings) -> std::unique_ptr<RemoteBackend> {
    return std::make_unique<HttpBackend>(settings);
  });
}

}  // namespace kiln::remote
