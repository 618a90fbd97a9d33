// One libcurl easy handle for a backend's requests over HTTP (http/, s3/), so that a build's requests
// share one connection, with the bounds every such request keeps (remote_backend.hpp): it ends within
// its time limit, and an answer longer than k_max_remote_entry_size is refused unread when its
// Content-Length says so, and cut off there when it does not (a chunked or endless body).
// A backend starts a request, sets what is its own on the handle (headers, credentials, signing), then
// sends it with get(), head() or put().
#pragma once

#include "remote/remote_backend.hpp"

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace kiln::remote {

class CurlSession {
public:
  CurlSession(std::chrono::milliseconds connect_timeout, std::chrono::milliseconds timeout);
  ~CurlSession();
  CurlSession(const CurlSession&) = delete;
  CurlSession& operator=(const CurlSession&) = delete;

  // Resets the handle (keeping its connection) for a request of `url` that takes at most `limit`, and
  // at most the session's timeouts; messages name `shown` (the URL with any password hidden). Null,
  // with `reply` saying why, when no request can start (no time left, no libcurl).
  CURL* start(const std::string& url, const std::string& shown, std::chrono::milliseconds limit, Reply& reply);

  // The request started, sent: the HTTP status, or 0 after filling `reply` with why there is none (an
  // answer too large is `failed`; no connection, or no answer in time, `unreachable`).
  long get(Reply& reply);   // the body in reply.bytes, whatever the status
  long head(Reply& reply);
  // `answer`, when given, keeps what the server said (a status page, at most k_max_put_answer).
  long put(std::span<const std::byte> value, Reply& reply, std::vector<std::byte>* answer = nullptr);

  // Whether an object must still be stored: false when `only_if_missing` and a HEAD (readied by
  // `start_head`, given the time left) finds it (`reply` found) or gets no answer (`reply` says why).
  // Any other status (404, a server that refuses HEAD) means store it. What the HEAD took comes off
  // `limit`: the HEAD and the PUT keep one limit.
  bool needs_storing(bool only_if_missing, std::chrono::milliseconds& limit, Reply& reply,
                     const std::function<bool(std::chrono::milliseconds)>& start_head);

  // The most a server may say in answer to a PUT or a HEAD: a status page, not an entry.
  static constexpr std::size_t k_max_put_answer = 1 << 20;

private:
  struct Body;
  static std::size_t take_body(char* data, std::size_t size, std::size_t count, void* out);
  long perform(Reply& reply, const Body& body);

  std::chrono::milliseconds m_connect_timeout;
  std::chrono::milliseconds m_timeout;
  CURL* m_curl = nullptr;
  std::string m_shown;
  char m_error[CURL_ERROR_SIZE] = {};
};

}  // namespace kiln::remote
