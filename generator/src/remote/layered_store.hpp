// The user's local store first, a remote server second: what a build asks for is looked up locally,
// then remotely (a remote hit is written back to the local store); what it stores goes to both (to
// the local one only in read mode). Remote entries are the local store's entry format
// (store/entry_format.hpp), so bytes a server mangled fail their key or checksum check and read as a
// miss, which the next put replaces.
//
// Worker processes forked from the build use the local store alone (the connection is the parent's):
// what they store reaches the server when the parent next reads it (get), if the server lacked it.
//
// The remote side can only cost time: a server that errs or cannot be reached is said once (one
// warning for the whole build) and counted; one that does not answer at all is not asked again in
// this build. Counters: remote.hits, remote.misses (damaged entries included), remote.damaged,
// remote.errors, remote.writes.
#pragma once

#include "remote/remote_backend.hpp"
#include "store/store.hpp"

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

private:
  void trouble(const Reply& reply);
  bool remote_usable(std::string_view key) const;
  void send(std::string_view key, std::span<const std::byte> value);

  store::Store& m_local;
  std::unique_ptr<RemoteBackend> m_remote;
  RemoteSettings m_settings;
  Warn m_warn;
  mutable std::mutex m_mutex;
  bool m_warned = false;
  bool m_unreachable = false;
  std::set<std::string, std::less<>> m_damaged;   // keys whose remote entry did not read: replace, never keep
  std::set<std::string, std::less<>> m_missed;    // keys the server lacked, not yet stored
  long m_owner = 0;                               // the process that may use the connection
  store::Counters m_total;
  store::Counters m_reported;
};

}  // namespace kiln::remote
