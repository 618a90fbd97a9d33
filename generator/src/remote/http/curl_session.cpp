#include "remote/http/curl_session.hpp"

#include "remote/entry_signing.hpp"
#include "store/size_spec.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

namespace kiln::remote {

// A response body, kept (GET) or only counted (HEAD, PUT), and cut off past `limit` bytes.
struct CurlSession::Body {
  std::vector<std::byte>* kept = nullptr;
  std::size_t limit = 0;
  std::size_t seen = 0;
  bool too_large = false;
};

namespace {

struct CurlUpload {
  std::span<const std::byte> value;
  std::size_t sent = 0;
};

std::size_t send_curl_upload(char* data, std::size_t size, std::size_t count, void* in) {
  auto* upload = static_cast<CurlUpload*>(in);
  const std::size_t n = std::min(size * count, upload->value.size() - upload->sent);
  std::memcpy(data, upload->value.data() + upload->sent, n);
  upload->sent += n;
  return n;
}

// Whether libcurl got no answer at all: later requests would only wait too.
bool curl_got_no_answer(CURLcode code) {
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

}  // namespace

std::size_t CurlSession::take_body(char* data, std::size_t size, std::size_t count, void* out) {
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

CurlSession::CurlSession(std::chrono::milliseconds connect_timeout, std::chrono::milliseconds timeout)
    : m_connect_timeout(connect_timeout), m_timeout(timeout) {
  static std::once_flag initialized;
  std::call_once(initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  m_curl = curl_easy_init();
}

CurlSession::~CurlSession() {
  if (m_curl) curl_easy_cleanup(m_curl);
}

CURL* CurlSession::start(const std::string& url, const std::string& shown, std::chrono::milliseconds limit,
                         Reply& reply) {
  m_shown = shown;
  if (!m_curl) {
    reply.kind = Reply::Kind::unreachable;
    reply.message = "cannot start libcurl";
    return nullptr;
  }
  if (limit.count() <= 0) {
    reply.kind = Reply::Kind::unreachable;
    reply.message = "no time left for " + shown;
    return nullptr;
  }
  curl_easy_reset(m_curl);
  curl_easy_setopt(m_curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(m_curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(m_curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(std::min(m_connect_timeout, limit).count()));
  curl_easy_setopt(m_curl, CURLOPT_TIMEOUT_MS, static_cast<long>(std::min(m_timeout, limit).count()));
  curl_easy_setopt(m_curl, CURLOPT_USERAGENT, "kiln");
  curl_easy_setopt(m_curl, CURLOPT_ERRORBUFFER, m_error);
  m_error[0] = '\0';
  return m_curl;
}

long CurlSession::get(Reply& reply) {
  Body body{&reply.bytes, k_max_remote_entry_size};
  curl_easy_setopt(m_curl, CURLOPT_HTTPGET, 1L);
  // A Content-Length above it is refused before the body is read.
  curl_easy_setopt(m_curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(k_max_remote_entry_size));
  curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, take_body);
  curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, &body);
  return perform(reply, body);
}

long CurlSession::head(Reply& reply) {
  Body none{nullptr, k_max_put_answer};   // a HEAD has no body; a server that sends one anyway
  curl_easy_setopt(m_curl, CURLOPT_NOBODY, 1L);
  return perform(reply, none);
}

long CurlSession::put(std::span<const std::byte> value, Reply& reply, std::vector<std::byte>* answer) {
  CurlUpload upload{value};
  curl_easy_setopt(m_curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(m_curl, CURLOPT_READFUNCTION, send_curl_upload);
  curl_easy_setopt(m_curl, CURLOPT_READDATA, &upload);
  curl_easy_setopt(m_curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(value.size()));
  Body said{answer, k_max_put_answer};
  curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, take_body);
  curl_easy_setopt(m_curl, CURLOPT_WRITEDATA, &said);
  return perform(reply, said);
}

long CurlSession::perform(Reply& reply, const Body& body) {
  const CURLcode code = curl_easy_perform(m_curl);
  if (code == CURLE_FILESIZE_EXCEEDED || (code == CURLE_WRITE_ERROR && body.too_large)) {
    reply.kind = Reply::Kind::failed;
    reply.message = "the answer for " + m_shown + " is larger than any entry (more than " +
                    store::format_size(body.limit) + "); refused";
    reply.bytes.clear();
    reply.bytes.shrink_to_fit();
    return 0;
  }
  if (code != CURLE_OK) {
    reply.kind = curl_got_no_answer(code) ? Reply::Kind::unreachable : Reply::Kind::failed;
    reply.message = std::string(m_error[0] ? m_error : curl_easy_strerror(code)) + " (" + m_shown + ")";
    reply.bytes.clear();
    return 0;
  }
  long status = 0;
  curl_easy_getinfo(m_curl, CURLINFO_RESPONSE_CODE, &status);
  return status;
}

bool CurlSession::needs_storing(bool only_if_missing, std::chrono::milliseconds& limit, Reply& reply,
                                const std::function<bool(std::chrono::milliseconds)>& start_head) {
  if (!only_if_missing) return true;
  const auto started = std::chrono::steady_clock::now();
  if (!start_head(limit)) return false;
  const long status = head(reply);
  if (status == 200) {
    reply.kind = Reply::Kind::found;
    return false;
  }
  if (status == 0) return false;
  limit -= std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  return true;
}

}  // namespace kiln::remote
