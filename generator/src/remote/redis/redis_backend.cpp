// The Redis backend on hiredis: entries are the strings kiln:<key>, one connection per build, opened
// (with AUTH and SELECT) on the first request.
//
// hiredis's blocking redisCommand is not used: it buffers an answer whole, whatever length the server
// announces (a 2 GiB string took a build to 2.2 GB), and its time limit holds for each read, so a
// server that trickles never times out. Requests here run redisCommand's own loop (append, write,
// read, parse) with one deadline for the whole request and a look at what is buffered before hiredis
// parses it: an answer that cannot be one Kiln takes is refused there, unread.
#include "remote/redis/redis_backend.hpp"

#include "remote/entry_signing.hpp"
#include "remote/remote_backend.hpp"
#include "store/size_spec.hpp"

#include <hiredis/hiredis.h>

#include <sys/time.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <string>
#include <string_view>

namespace kiln::remote {

namespace {

using Clock = std::chrono::steady_clock;

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using RedisReply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval timeval_of(std::chrono::milliseconds ms) {
  return {static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>((ms.count() % 1000) * 1000)};
}

// Until `deadline`, at least a millisecond (a socket time limit of 0 means none); 0 once it passed.
std::chrono::milliseconds time_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? left : std::chrono::milliseconds(0);
}

// A status, error or integer line is short; only a bulk string may carry an entry.
constexpr std::size_t k_max_line = 64 << 10;
// How much of an answer's start is kept to judge it: a type and a length line of any sound size.
constexpr std::size_t k_judged_start = 32;

// What one answer has brought so far: its first bytes and how many there were. Kept apart from
// hiredis's reader, whose buffer starts past the type byte once it has read it and is compacted as it
// goes, so that no way of splitting an answer across reads hides its length.
struct AnswerSoFar {
  std::string start;
  std::size_t size = 0;

  void take(std::string_view bytes) {
    size += bytes.size();
    start.append(bytes.substr(0, std::min(bytes.size(), k_judged_start - start.size())));
  }
};

// Whether an answer that has brought `so_far` may be one Kiln takes (GET, SET, AUTH and SELECT answer
// a string, nil, a status, an error or an integer); what it is ("an array") when it may not.
Status check_answer(const AnswerSoFar& so_far) {
  const std::string_view start = so_far.start;
  if (start.empty()) return {};
  const std::size_t end = start.find("\r\n");
  if (start.front() == '$') {
    if (end == std::string_view::npos) {
      if (start.size() == k_judged_start) return Error("a string length that does not end");
      return {};
    }
    long long length = 0;
    const auto [ptr, ec] = std::from_chars(start.data() + 1, start.data() + end, length);
    if (ec != std::errc() || ptr != start.data() + end) return {};   // hiredis says what is wrong
    if (length > static_cast<long long>(k_max_remote_entry_size))
      return Error("a string of " + std::to_string(length) + " bytes, larger than any entry (at most " +
                   store::format_size(k_max_remote_entry_size) + ")");
    // A sound length: hiredis returns the string once it has that many bytes; anything past them is
    // not this answer's, and is bounded below all the same.
  } else if (start.front() == '*') {
    return Error("an array");   // its elements would be allocated before anything is checked
  } else if (so_far.size > k_max_line) {
    return Error("a line that does not end");   // the answer is one line, and hiredis has not seen its end
  }
  if (so_far.size > k_max_remote_entry_size + k_max_line)
    return Error("more than any entry (at most " + store::format_size(k_max_remote_entry_size) + ")");
  return {};
}

class RedisBackend final : public RemoteBackend {
public:
  RedisBackend(RedisAddress address, const RemoteSettings& settings)
      : m_address(std::move(address)), m_settings(settings) {}
  ~RedisBackend() override {
    if (m_context) redisFree(m_context);
  }

  Reply get(std::string_view key, std::chrono::milliseconds limit) override {
    Reply reply;
    const std::string name = "kiln:" + std::string(key);
    RedisReply answer = command(reply, {"GET", name}, deadline(limit));
    if (!answer) return reply;
    if (answer->type == REDIS_REPLY_STRING) {
      const auto* begin = reinterpret_cast<const std::byte*>(answer->str);
      reply.bytes.assign(begin, begin + answer->len);
      reply.kind = Reply::Kind::found;
    } else if (answer->type == REDIS_REPLY_NIL) {
      reply.kind = Reply::Kind::absent;
    } else {
      refused(reply, *answer, "GET " + name);
    }
    return reply;
  }

  Reply put(std::string_view key, std::span<const std::byte> value, bool only_if_missing,
            std::chrono::milliseconds limit) override {
    Reply reply;
    const std::string name = "kiln:" + std::string(key);
    const std::string_view bytes(reinterpret_cast<const char*>(value.data()), value.size());
    RedisReply answer = only_if_missing ? command(reply, {"SET", name, bytes, "NX"}, deadline(limit))
                                        : command(reply, {"SET", name, bytes}, deadline(limit));
    if (!answer) return reply;
    // SET NX answers nil when the entry is already there: the value is stored either way.
    if (answer->type == REDIS_REPLY_STATUS || answer->type == REDIS_REPLY_NIL)
      reply.kind = Reply::Kind::found;
    else
      refused(reply, *answer, "SET " + name);
    return reply;
  }

private:
  Clock::time_point deadline(std::chrono::milliseconds limit) const {
    return Clock::now() + std::min(limit, m_settings.timeout);
  }

  // Sends one command on the connection (opening it first if needed); nothing, with `reply` saying why,
  // when there is no answer Kiln takes. The connection is then dropped, so a later request starts afresh.
  RedisReply command(Reply& reply, std::initializer_list<std::string_view> words, Clock::time_point deadline) {
    if (!connect(reply, deadline)) return nullptr;
    RedisReply answer = exchange(reply, words, deadline);
    if (!answer) drop();
    return answer;
  }

  // redisCommand's loop, bounded in time and in what it buffers.
  RedisReply exchange(Reply& reply, std::initializer_list<std::string_view> words, Clock::time_point deadline) {
    std::array<const char*, 8> argv{};
    std::array<std::size_t, 8> lengths{};
    int n = 0;
    for (const std::string_view word : words) {
      argv[n] = word.data();
      lengths[n] = word.size();
      ++n;
    }
    if (redisAppendCommandArgv(m_context, n, argv.data(), lengths.data()) != REDIS_OK) return failed(reply, deadline);
    for (int done = 0; !done;) {
      if (!limit_socket(deadline) || redisBufferWrite(m_context, &done) != REDIS_OK) return failed(reply, deadline);
    }
    AnswerSoFar so_far;
    const redisReader& reader = *m_context->reader;
    so_far.take({reader.buf + reader.pos, reader.len - reader.pos});   // what an earlier answer left
    while (true) {
      void* answer = nullptr;
      if (redisGetReplyFromReader(m_context, &answer) != REDIS_OK) return failed(reply, deadline);
      if (answer) return RedisReply(static_cast<redisReply*>(answer));
      // The read appends to the reader's buffer: what it brought is what lies past the old end.
      const std::size_t before = reader.len;
      if (!limit_socket(deadline) || redisBufferRead(m_context) != REDIS_OK) return failed(reply, deadline);
      so_far.take({reader.buf + before, reader.len - before});
      if (const Status taken = check_answer(so_far); !taken) {
        reply.kind = Reply::Kind::failed;
        reply.message = "the answer is " + taken.error().message + "; refused (" + m_settings.shown_url + ")";
        return nullptr;
      }
    }
  }

  // Sets the socket's time limit to what is left until `deadline`; false once nothing is.
  bool limit_socket(Clock::time_point deadline) {
    const std::chrono::milliseconds left = time_left(deadline);
    return left.count() > 0 && redisSetTimeout(m_context, timeval_of(left)) == REDIS_OK;
  }

  // No answer: the connection failed, or the request ran out of time.
  std::nullptr_t failed(Reply& reply, Clock::time_point deadline) const {
    const bool late = time_left(deadline).count() == 0 || (m_context->err == REDIS_ERR_IO && errno == EAGAIN);
    reply.kind = Reply::Kind::unreachable;
    reply.message = (late ? std::string("timed out") : m_context->errstr[0] ? m_context->errstr : "no answer") +
                    std::string(" (") + m_settings.shown_url + ")";
    return nullptr;
  }

  void drop() {
    if (m_context) redisFree(m_context);
    m_context = nullptr;
  }

  bool connect(Reply& reply, Clock::time_point deadline) {
    if (m_context) return true;
    const std::chrono::milliseconds left = time_left(deadline);
    if (left.count() == 0) {
      reply.kind = Reply::Kind::unreachable;
      reply.message = "timed out (" + m_settings.shown_url + ")";
      return false;
    }
    m_context = redisConnectWithTimeout(m_address.host.c_str(), m_address.port,
                                        timeval_of(std::min(m_settings.connect_timeout, left)));
    if (!m_context || m_context->err) {
      reply.kind = Reply::Kind::unreachable;
      reply.message = std::string(m_context ? m_context->errstr : "cannot allocate a connection") + " (" +
                      m_settings.shown_url + ")";
      drop();
      return false;
    }
    if (!m_address.password.empty()) {
      RedisReply answer = m_address.user.empty() ? exchange(reply, {"AUTH", m_address.password}, deadline)
                                                  : exchange(reply, {"AUTH", m_address.user, m_address.password}, deadline);
      if (!ready(reply, answer.get(), "AUTH")) return false;
    }
    if (m_address.database != 0) {
      const std::string database = std::to_string(m_address.database);
      RedisReply answer = exchange(reply, {"SELECT", database}, deadline);
      if (!ready(reply, answer.get(), "SELECT " + database)) return false;
    }
    return true;
  }

  // Whether a setup command succeeded; otherwise the connection is closed and `reply` says why. A server
  // that refuses the password or the database refuses every later request too: unreachable.
  bool ready(Reply& reply, const redisReply* answer, const std::string& what) {
    if (answer && answer->type != REDIS_REPLY_ERROR) return true;
    reply.kind = Reply::Kind::unreachable;
    reply.message = what + ": " + (answer ? std::string(answer->str, answer->len) : reply.message);
    if (answer) reply.message += " (" + m_settings.shown_url + ")";
    drop();
    return false;
  }

  void refused(Reply& reply, const redisReply& answer, const std::string& what) const {
    reply.kind = Reply::Kind::failed;
    reply.message = what + ": " +
                    (answer.type == REDIS_REPLY_ERROR ? std::string(answer.str, answer.len)
                                                      : "unexpected reply type " + std::to_string(answer.type)) +
                    " (" + m_settings.shown_url + ")";
  }

  RedisAddress m_address;
  RemoteSettings m_settings;
  redisContext* m_context = nullptr;
};

}  // namespace

Result<RedisAddress> redis_address(const RemoteUrl& url, const std::string& token) {
  RedisAddress address;
  address.host = url.host;
  address.user = url.user;
  address.password = url.password.empty() ? token : url.password;
  Result<int> port = port_of(url, address.port);
  if (!port) return port.error();
  address.port = *port;
  std::string path = url.path;
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  if (!path.empty()) {
    int database = 0;
    const auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), database);
    if (ec != std::errc() || end != path.data() + path.size() || database < 0 || database > (1 << 20))
      return url_error(url, "'/" + path + "' is not a database number (redis://host:port/0)");
    address.database = database;
  }
  return address;
}

Result<BackendOpener> prepare_redis(const RemoteUrl& url, const store::Environment&, RemoteSettings& settings) {
  Result<RedisAddress> address = redis_address(url, settings.token);
  if (!address) return address.error();
  return BackendOpener([address = std::move(*address)](const RemoteSettings& opened) -> std::unique_ptr<RemoteBackend> {
    return std::make_unique<RedisBackend>(address, opened);
  });
}

}  // namespace kiln::remote
