#include "remote/layered_store.hpp"

#include "store/entry_format.hpp"

#include <unistd.h>

namespace kiln::remote {

LayeredStore::LayeredStore(store::Store& local, std::unique_ptr<RemoteBackend> remote,
                           RemoteSettings settings, Warn warn)
    : m_local(local), m_remote(std::move(remote)), m_settings(std::move(settings)), m_warn(std::move(warn)) {
  for (const char* name : {"remote.hits", "remote.misses", "remote.damaged", "remote.errors", "remote.writes"})
    m_total[name] = 0;
  m_owner = static_cast<long>(getpid());
}

bool LayeredStore::remote_usable(std::string_view key) const {
  return !m_unreachable && store::valid_key(key) && static_cast<long>(getpid()) == m_owner;
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
  const Reply reply = m_remote->get(key);
  if (reply.kind == Reply::Kind::absent) {
    ++m_total["remote.misses"];
    m_missed.emplace(key);
    return std::nullopt;
  }
  if (reply.kind != Reply::Kind::found) {
    trouble(reply);
    return std::nullopt;
  }
  const std::optional<std::span<const std::byte>> payload = store::decode_entry(reply.bytes, key);
  if (!payload) {
    ++m_total["remote.misses"];
    ++m_total["remote.damaged"];
    m_damaged.emplace(key);
    m_missed.emplace(key);
    if (!m_warned) {
      m_warned = true;
      m_warn("kiln: warning: remote cache " + m_settings.shown_url + ": the entry " + std::string(key) +
             " is damaged (its key, size or checksum does not match); compiling instead" +
             (m_settings.mode == Mode::read_write ? " and replacing it" : ""));
    }
    return std::nullopt;
  }
  ++m_total["remote.hits"];
  std::vector<std::byte> value(payload->begin(), payload->end());
  m_local.put(key, value);
  return value;
}

void LayeredStore::put(std::string_view key, std::span<const std::byte> value) {
  std::lock_guard lock(m_mutex);
  m_local.put(key, value);
  if (!remote_usable(key)) return;
  if (const auto missed = m_missed.find(key); missed != m_missed.end()) m_missed.erase(missed);
  send(key, value);
}

void LayeredStore::send(std::string_view key, std::span<const std::byte> value) {
  if (m_settings.mode == Mode::read) return;
  // Another machine may have stored the same entry meanwhile; a damaged one must be replaced.
  const bool only_if_missing = !m_damaged.count(key);
  const Reply reply = m_remote->put(key, store::encode_entry(key, value), only_if_missing);
  if (reply.kind == Reply::Kind::found)
    ++m_total["remote.writes"];
  else
    trouble(reply);
}

void LayeredStore::trouble(const Reply& reply) {
  ++m_total["remote.errors"];
  if (reply.kind == Reply::Kind::unreachable) m_unreachable = true;
  if (m_warned) return;
  m_warned = true;
  m_warn("kiln: warning: remote cache: " + reply.message +
         (m_unreachable ? "; building without it" : "; compiling what it cannot give"));
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
