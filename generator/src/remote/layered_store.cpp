#include "remote/layered_store.hpp"

#include "store/entry_format.hpp"
#include "util/diagnostic.hpp"

#include <unistd.h>

#include <cstdio>

namespace kiln::remote {

LayeredStore::LayeredStore(store::Store& local, std::unique_ptr<RemoteBackend> remote,
                           RemoteSettings settings, Warn warn)
    : m_local(local), m_remote(std::move(remote)), m_settings(std::move(settings)), m_warn(std::move(warn)) {
  for (const char* name : {"remote.hits", "remote.misses", "remote.damaged", "remote.untrusted", "remote.errors",
                           "remote.writes"})
    m_total[name] = 0;
  m_owner = static_cast<long>(getpid());
}

bool LayeredStore::remote_usable(std::string_view key) const {
  return !m_unreachable && !m_out_of_budget && store::valid_key(key) && static_cast<long>(getpid()) == m_owner;
}

bool LayeredStore::writes() const {
  // A build that verifies but cannot sign would store entries that every verifying build refuses.
  return m_settings.mode == Mode::read_write && (m_settings.signing_key || !m_settings.verify_key);
}

std::optional<std::vector<std::byte>> LayeredStore::get(std::string_view key) {
  std::lock_guard lock(m_mutex);
  if (std::optional<std::vector<std::byte>> local = m_local.get(key)) {
    // A worker process stored it after the server said it lacked it: the server gets it now.
    if (const auto missed = m_missed.find(key); missed != m_missed.end() && remote_usable(key)) {
      m_missed.erase(missed);
      send(key, *local);
    }
    return local;
  }
  if (!remote_usable(key)) return std::nullopt;
  const std::optional<Reply> reply = within_budget([&](std::chrono::milliseconds limit) { return m_remote->get(key, limit); });
  if (!reply) return std::nullopt;
  if (reply->kind == Reply::Kind::absent) {
    ++m_total["remote.misses"];
    m_missed.emplace(key);
    return std::nullopt;
  }
  if (reply->kind != Reply::Kind::found) {
    trouble(*reply);
    return std::nullopt;
  }
  const VerifyKey* verify = m_settings.verify_key ? &*m_settings.verify_key : nullptr;
  const OpenedEntry opened = open_entry(reply->bytes, verify);
  if (opened.trust != OpenedEntry::Trust::signed_by_key && opened.trust != OpenedEntry::Trust::unchecked) {
    refuse(key, "remote.untrusted", untrusted_reason(opened, *verify));
    return std::nullopt;
  }
  const std::optional<std::span<const std::byte>> payload = store::decode_entry(opened.entry, key);
  if (!payload) {
    refuse(key, "remote.damaged", "is damaged (its key, size or checksum does not match)");
    return std::nullopt;
  }
  ++m_total["remote.hits"];
  std::vector<std::byte> value(payload->begin(), payload->end());
  m_local.put(key, value);
  return value;
}

std::string LayeredStore::untrusted_reason(const OpenedEntry& opened, const VerifyKey& verify) {
  switch (opened.trust) {
    case OpenedEntry::Trust::unsigned_entry: return "is not signed (KILN_REMOTE_CACHE_VERIFY_KEY wants a signature)";
    case OpenedEntry::Trust::other_key:
      return "is signed with key " + opened.signer + ", not the verify key " + key_id(verify);
    default: return "has a signature that does not hold (changed since it was signed, or forged)";
  }
}

void LayeredStore::refuse(std::string_view key, const char* counter, const std::string& why) {
  ++m_total["remote.misses"];
  ++m_total[counter];
  m_damaged.emplace(key);
  m_missed.emplace(key);
  if (m_warned_entry) return;
  m_warned_entry = true;
  m_warn(diagnostic(Location{}, "warning",
                    "remote cache " + m_settings.shown_url + ": the entry " + std::string(key) + " " + why +
                        "; compiling instead" + (writes() ? " and replacing it" : "")));
}

void LayeredStore::put(std::string_view key, std::span<const std::byte> value) {
  std::lock_guard lock(m_mutex);
  m_local.put(key, value);
  if (!remote_usable(key)) return;
  if (const auto missed = m_missed.find(key); missed != m_missed.end()) m_missed.erase(missed);
  send(key, value);
}

void LayeredStore::send(std::string_view key, std::span<const std::byte> value) {
  if (!writes() || value.size() > store::k_max_payload_size) return;
  // Another machine may have stored the same entry meanwhile; a damaged or untrusted one must be replaced.
  const bool only_if_missing = !m_damaged.count(key);
  std::vector<std::byte> entry = store::encode_entry(key, value);
  if (m_settings.signing_key) entry = sign_entry(entry, *m_settings.signing_key);
  const std::optional<Reply> reply = within_budget(
      [&](std::chrono::milliseconds limit) { return m_remote->put(key, entry, only_if_missing, limit); });
  if (!reply) return;
  if (reply->kind == Reply::Kind::found)
    ++m_total["remote.writes"];
  else
    trouble(*reply);
}

std::optional<Reply> LayeredStore::within_budget(const std::function<Reply(std::chrono::milliseconds)>& request) {
  using namespace std::chrono;
  const milliseconds left = m_settings.budget - duration_cast<milliseconds>(m_waited);
  if (left.count() <= 0) {
    out_of_budget();
    return std::nullopt;
  }
  const auto started = steady_clock::now();
  Reply reply = request(left);
  const auto took = steady_clock::now() - started;
  m_waited += took;
  // A request the budget cut short says nothing of the server beyond that: one warning, the budget's.
  // Where the budget's remainder was its limit, its time limit may end it a little before that: a
  // socket's limit is whole milliseconds, and the kernel's timer may fire up to a scheduler tick
  // (10 ms at HZ=100) early. A request that fails at once (a refused connection) is the server's.
  constexpr milliseconds k_timer_slack{20};
  const bool cut_at_limit = left <= m_settings.timeout && took + std::min(k_timer_slack, left / 2) >= left;
  if ((m_waited >= m_settings.budget || cut_at_limit) && reply.kind != Reply::Kind::found &&
      reply.kind != Reply::Kind::absent) {
    out_of_budget();
    return std::nullopt;
  }
  return reply;
}

void LayeredStore::out_of_budget() {
  if (m_out_of_budget) return;
  m_out_of_budget = true;
  ++m_total["remote.errors"];
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.1f", std::chrono::duration<double>(m_waited).count());
  char budget[32];
  std::snprintf(budget, sizeof budget, "%g", std::chrono::duration<double>(m_settings.budget).count());
  m_warn(diagnostic(Location{}, "warning",
                    "remote cache " + m_settings.shown_url + ": waited " + waited +
                        " s for the server in this build, its budget (KILN_REMOTE_CACHE_BUDGET=" + budget +
                        "); building without it"));
}

void LayeredStore::trouble(const Reply& reply) {
  ++m_total["remote.errors"];
  if (reply.kind == Reply::Kind::unreachable) m_unreachable = true;
  if (m_warned_trouble) return;
  m_warned_trouble = true;
  m_warn(diagnostic(Location{}, "warning",
                    "remote cache: " + reply.message +
                        (m_unreachable ? "; building without it" : "; compiling what it cannot give")));
}

void LayeredStore::add_counters(const store::Counters& counters) {
  store::Counters added = counters;
  {
    std::lock_guard lock(m_mutex);
    for (const auto& [name, value] : m_total) {
      if (value != m_reported[name]) added[name] += value - m_reported[name];
      m_reported[name] = value;
    }
  }
  m_local.add_counters(added);
}

store::Counters LayeredStore::remote_counters() const {
  std::lock_guard lock(m_mutex);
  return m_total;
}

}  // namespace kiln::remote
