// The Redis backend on hiredis: entries are the strings kiln:<key>, one connection per build, opened
// (with AUTH and SELECT) on the first request.
#include "remote/remote_backend.hpp"

#include <hiredis/hiredis.h>

#include <sys/time.h>

#include <array>

namespace kiln::remote {

namespace {

struct ReplyDeleter {
  void operator()(redisReply* reply) const { freeReplyObject(reply); }
};
using RedisReply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval timeval_of(std::chrono::milliseconds ms) {
  return {static_cast<time_t>(ms.count() / 1000), static_cast<suseconds_t>((ms.count() % 1000) * 1000)};
}

class RedisBackend final : public RemoteBackend {
public:
  explicit RedisBackend(const RemoteSettings& settings) : m_settings(settings) {}
  ~RedisBackend() override {
    if (m_context) redisFree(m_context);
  }

  Reply get(std::string_view key) override {
    Reply reply;
    const std::string name = "kiln:" + std::string(key);
    RedisReply answer = command(reply, {"GET", name});
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

  Reply put(std::string_view key, std::span<const std::byte> value, bool only_if_missing) override {
    Reply reply;
    const std::string name = "kiln:" + std::string(key);
    const std::string_view bytes(reinterpret_cast<const char*>(value.data()), value.size());
    RedisReply answer = only_if_missing ? command(reply, {"SET", name, bytes, "NX"}) : command(reply, {"SET", name, bytes});
    if (!answer) return reply;
    // SET NX answers nil when the entry is already there: the value is stored either way.
    if (answer->type == REDIS_REPLY_STATUS || answer->type == REDIS_REPLY_NIL)
      reply.kind = Reply::Kind::found;
    else
      refused(reply, *answer, "SET " + name);
    return reply;
  }

private:
  // Sends one command on the connection (opening it first if needed); nothing, with `reply` saying why,
  // when there is no answer. A connection that broke is dropped, so a later request starts afresh.
  RedisReply command(Reply& reply, std::initializer_list<std::string_view> words) {
    if (!connect(reply)) return nullptr;
    RedisReply answer = send(words);
    if (!answer) {
      reply.kind = Reply::Kind::unreachable;
      reply.message = std::string(m_context->errstr[0] ? m_context->errstr : "no answer") + " (" + m_settings.shown_url + ")";
      redisFree(m_context);
      m_context = nullptr;
    }
    return answer;
  }

  RedisReply send(std::initializer_list<std::string_view> words) {
    std::array<const char*, 8> argv{};
    std::array<std::size_t, 8> lengths{};
    int n = 0;
    for (const std::string_view word : words) {
      argv[n] = word.data();
      lengths[n] = word.size();
      ++n;
    }
    return RedisReply(static_cast<redisReply*>(redisCommandArgv(m_context, n, argv.data(), lengths.data())));
  }

  bool connect(Reply& reply) {
    if (m_context) return true;
    m_context = redisConnectWithTimeout(m_settings.host.c_str(), m_settings.port, timeval_of(m_settings.connect_timeout));
    if (!m_context || m_context->err) {
      reply.kind = Reply::Kind::unreachable;
      reply.message = std::string(m_context ? m_context->errstr : "cannot allocate a connection") + " (" +
                      m_settings.shown_url + ")";
      if (m_context) redisFree(m_context);
      m_context = nullptr;
      return false;
    }
    redisSetTimeout(m_context, timeval_of(m_settings.timeout));
    RedisReply answer;
    if (!m_settings.password.empty()) {
      answer = m_settings.user.empty() ? send({"AUTH", m_settings.password})
                                       : send({"AUTH", m_settings.user, m_settings.password});
      if (!ready(reply, answer.get(), "AUTH")) return false;
    }
    if (m_settings.database != 0) {
      const std::string database = std::to_string(m_settings.database);
      answer = send({"SELECT", database});
      if (!ready(reply, answer.get(), "SELECT " + database)) return false;
    }
    return true;
  }

  // Whether a setup command succeeded; otherwise the connection is closed and `reply` says why. A server
  // that refuses the password or the database refuses every later request too: unreachable.
  bool ready(Reply& reply, const redisReply* answer, const std::string& what) {
    if (answer && answer->type != REDIS_REPLY_ERROR) return true;
    reply.kind = Reply::Kind::unreachable;
    reply.message = what + ": " + (answer ? std::string(answer->str, answer->len) : std::string(m_context->errstr)) +
                    " (" + m_settings.shown_url + ")";
    redisFree(m_context);
    m_context = nullptr;
    return false;
  }

  void refused(Reply& reply, const redisReply& answer, const std::string& what) const {
    reply.kind = Reply::Kind::failed;
    reply.message = what + ": " +
                    (answer.type == REDIS_REPLY_ERROR ? std::string(answer.str, answer.len)
                                                      : "unexpected reply type " + std::to_string(answer.type)) +
                    " (" + m_settings.shown_url + ")";
  }

  RemoteSettings m_settings;
  redisContext* m_context = nullptr;
};

}  // namespace

std::unique_ptr<RemoteBackend> make_redis_backend(const RemoteSettings& settings) {
  return std::make_unique<RedisBackend>(settings);
}

}  // namespace kiln::remote
