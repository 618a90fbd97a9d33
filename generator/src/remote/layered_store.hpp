// The user's local store first, a remote server second: what a build asks for is looked up locally,
// then remotely (a remote hit is written back to the local store); what it stores goes to both (to
// the local one only in read mode). Remote entries are the local store's entry format
// (store/entry_format.hpp), so bytes a server mangled fail their key or checksum check and read as a
// miss, which the next put replaces.
//
// Worker processes forked from the build use the local store alone (the connection is the parent's):
// what they store reaches the server when the parent next reads it (get), if the server lacked it.
//
// With a verify key (remote_settings.hpp), an entry must also carry a signature by that key
// (entry_signing.hpp): one unsigned, signed with another key or whose signature does not hold is a
// miss like a damaged one, which a build that signs replaces. A build that verifies but does not
// sign writes nothing to the server.
//
// The remote side can only cost time, and only so much: a server that errs or cannot be reached is
// said once and counted; one that does not answer at all is not asked again in this build; once the
// build has waited KILN_REMOTE_CACHE_BUDGET on the server in all it asks no more, and says so once.
// Damaged or untrusted entries are said once too (the first one, with why). Counters: remote.hits,
// remote.misses (damaged and untrusted entries included), remote.damaged, remote.untrusted,
// remote.errors (the spent budget counts one), remote.writes.
#pragma once

#include "remote/entry_signing.hpp"
#include "remote/remote_backend.hpp"
#include "store/store.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace kiln::remote {

class LayeredStore final : public store::Store {
public:
  using Warn = std::function<void(const std::string&)>;

  // `local` (which must outlive this store) may be a null store: no local cache, or one that cannot be
  // written.
  LayeredStore(store::Store& local, std::unique_ptr<RemoteBackend> remote, RemoteSettings settings,
               Warn warn);

  std::optional<std::vector<std::byte>> get(std::string_view key) override;
  void put(std::string_view key, std::span<const std::byte> value) override;
  // Adds the remote counters gathered since the last call to `counters`, and passes them on.
  void add_counters(const store::Counters& counters) override;

  // What this store counted so far (for -v).
  store::Counters remote_counters() const;
  // Why the backend made the cache read only ("no AWS credentials ..."), "" when it did not (for -v).
  const std::string& mode_reason() const { return m_settings.mode_reason; }

private:
  void trouble(const Reply& reply);
  bool remote_usable(std::string_view key) const;
  bool writes() const;
  void send(std::string_view key, std::span<const std::byte> value);
  // A miss for an entry the server holds but that is not to be used; `counter` says which kind.
  void refuse(std::string_view key, const char* counter, const std::string& why);
  static std::string untrusted_reason(const OpenedEntry& opened, const VerifyKey& verify);
  // The request's reply, given what is left of the budget as its time limit; nothing once the budget
  // is spent (said once).
  std::optional<Reply> within_budget(const std::function<Reply(std::chrono::milliseconds)>& request);
  void out_of_budget();

  store::Store& m_local;
  std::unique_ptr<RemoteBackend> m_remote;
  RemoteSettings m_settings;
  Warn m_warn;
  mutable std::mutex m_mutex;
  bool m_warned_trouble = false;
  bool m_warned_entry = false;
  bool m_unreachable = false;
  bool m_out_of_budget = false;
  std::chrono::steady_clock::duration m_waited{};   // on the server, in all
  std::set<std::string, std::less<>> m_damaged;   // keys whose remote entry was not used: replace, never keep
  std::set<std::string, std::less<>> m_missed;    // keys the server lacked, not yet stored
  long m_owner = 0;                               // the process that may use the connection
  store::Counters m_total;
  store::Counters m_reported;
};

}  // namespace kiln::remote
