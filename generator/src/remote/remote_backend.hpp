// A server that holds store entries for many machines (backend_table.cpp lists the kinds). A backend
// moves bytes and reports what went wrong; it neither checks entries nor decides what a failure means
// for the build (layered_store.hpp does).
// What it reads is bounded: an answer longer than k_max_remote_entry_size (entry_signing.hpp) is
// refused, unread when the server says its length first (an HTTP Content-Length, a Redis bulk
// length, a gRPC message size) and cut off there when it does not (a chunked or endless body); a
// request ends within its time limit, however slowly the server trickles. Not safe for concurrent use.
#pragma once

#include "remote/remote_settings.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::remote {

struct Reply {
  enum class Kind {
    found,        // `bytes` holds the value (get), or the value was stored or is already there (put)
    absent,       // no such entry (get)
    failed,       // the server answered with an error; the next request may fare better
    unreachable,  // no answer: connecting failed or timed out; later requests would only wait too
  };
  Kind kind = Kind::absent;
  std::vector<std::byte> bytes;
  std::string message;   // for `failed` and `unreachable`: "HTTP 500 for http://host/prefix/ab/ab12...",
                         // "Connection refused (http://host:8080/prefix)"
};

class RemoteBackend {
public:
  virtual ~RemoteBackend() = default;
  // `limit`: the most this request may take, connecting included (at most the settings' timeouts);
  // past it the reply is `unreachable`, timed out.
  virtual Reply get(std::string_view key, std::chrono::milliseconds limit) = 0;
  // `only_if_missing`: leave an entry that is already there (HTTP: a HEAD first; Redis: SET NX).
  virtual Reply put(std::string_view key, std::span<const std::byte> value, bool only_if_missing,
                    std::chrono::milliseconds limit) = 0;
};

}  // namespace kiln::remote
