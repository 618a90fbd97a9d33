#include "remote/layered_store.hpp"

#include "store/entry_format.hpp"
#include "remote/entry_signing.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <thread>

namespace kiln::remote {
namespace {

std::vector<std::byte> bytes_of(std::string_view text) {
  const auto* begin = reinterpret_cast<const std::byte*>(text.data());
  return {begin, begin + text.size()};
}

const std::string k_key = "0123456789abcdef0123456789abcdef";
const std::string k_other = "fedcba9876543210fedcba9876543210";

// A store in memory, as the local cache.
class MemoryStore final : public store::Store {
public:
  std::optional<std::vector<std::byte>> get(std::string_view key) override {
    const auto it = entries.find(std::string(key));
    if (it == entries.end()) return std::nullopt;
    return it->second;
  }
  void put(std::string_view key, std::span<const std::byte> value) override {
    entries[std::string(key)].assign(value.begin(), value.end());
  }
  void add_counters(const store::Counters& counters) override {
    for (const auto& [name, value] : counters) added[name] += value;
  }
  std::map<std::string, std::vector<std::byte>> entries;
  store::Counters added;
};

// A server in memory that can be told to fail.
struct FakeServer {
  std::map<std::string, std::vector<std::byte>> entries;
  Reply::Kind failure = Reply::Kind::found;   // found: no failure
  int gets = 0;
  int puts = 0;
  std::vector<bool> only_if_missing;
  std::chrono::milliseconds delay{0};             // before each answer
  std::chrono::milliseconds early{0};             // how much sooner than its limit a cut request ends
  std::vector<std::chrono::milliseconds> limits;  // what each request was given
};

class FakeBackend final : public RemoteBackend {
public:
  explicit FakeBackend(FakeServer& server) : m_server(server) {}
  Reply get(std::string_view key, std::chrono::milliseconds limit) override {
    ++m_server.gets;
    if (!wait(limit)) return {Reply::Kind::unreachable, {}, "timed out"};
    if (m_server.failure != Reply::Kind::found) return {m_server.failure, {}, "the server is down"};
    const auto it = m_server.entries.find(std::string(key));
    if (it == m_server.entries.end()) return {Reply::Kind::absent, {}, {}};
    return {Reply::Kind::found, it->second, {}};
  }
  Reply put(std::string_view key, std::span<const std::byte> value, bool only_if_missing,
            std::chrono::milliseconds limit) override {
    ++m_server.puts;
    if (!wait(limit)) return {Reply::Kind::unreachable, {}, "timed out"};
    m_server.only_if_missing.push_back(only_if_missing);
    if (m_server.failure != Reply::Kind::found) return {m_server.failure, {}, "the server is down"};
    if (!only_if_missing || !m_server.entries.count(std::string(key)))
      m_server.entries[std::string(key)].assign(value.begin(), value.end());
    return {Reply::Kind::found, {}, {}};
  }

private:
  // The server's delay, cut at the request's limit: false when it was.
  bool wait(std::chrono::milliseconds limit) {
    m_server.limits.push_back(limit);
    if (m_server.delay <= limit) {
      std::this_thread::sleep_for(m_server.delay);
      return true;
    }
    std::this_thread::sleep_for(limit > m_server.early ? limit - m_server.early : std::chrono::milliseconds(0));
    return false;
  }
  FakeServer& m_server;
};

struct Layers {
  explicit Layers(Mode mode = Mode::read_write) : Layers([mode](RemoteSettings& s) { s.mode = mode; }) {}
  explicit Layers(const std::function<void(RemoteSettings&)>& set) {
    RemoteSettings settings;
    settings.shown_url = "http://cache/k";
    set(settings);
    store = std::make_unique<LayeredStore>(local, std::make_unique<FakeBackend>(server), settings,
                                           [this](const std::string& text) { warnings.push_back(text); });
  }
  MemoryStore local;
  FakeServer server;
  std::vector<std::string> warnings;
  std::unique_ptr<LayeredStore> store;
};

TEST(LayeredStore, LocalFirstThenRemoteWrittenBack) {
  Layers layers;
  layers.local.put(k_key, bytes_of("local"));
  EXPECT_EQ(layers.store->get(k_key), bytes_of("local"));
  EXPECT_EQ(layers.server.gets, 0);   // a local hit never asks the server

  layers.server.entries[k_other] = store::encode_entry(k_other, bytes_of("remote"));
  EXPECT_EQ(layers.store->get(k_other), bytes_of("remote"));
  EXPECT_EQ(layers.local.entries.at(k_other), bytes_of("remote"));   // written back
  EXPECT_EQ(layers.store->get(k_other), bytes_of("remote"));
  EXPECT_EQ(layers.server.gets, 1);
  EXPECT_EQ(layers.store->remote_counters()["remote.hits"], 1u);
  EXPECT_TRUE(layers.warnings.empty());
}

TEST(LayeredStore, PutsGoToBothAsCheckedEntries) {
  Layers layers;
  EXPECT_EQ(layers.store->get(k_key), std::nullopt);
  layers.store->put(k_key, bytes_of("value"));
  EXPECT_EQ(layers.local.entries.at(k_key), bytes_of("value"));
  const std::optional<std::span<const std::byte>> payload = store::decode_entry(layers.server.entries.at(k_key), k_key);
  ASSERT_TRUE(payload);
  EXPECT_EQ(std::vector<std::byte>(payload->begin(), payload->end()), bytes_of("value"));
  EXPECT_EQ(layers.server.only_if_missing, std::vector<bool>{true});
  store::Counters counts = layers.store->remote_counters();
  EXPECT_EQ(counts["remote.misses"], 1u);
  EXPECT_EQ(counts["remote.writes"], 1u);
}

TEST(LayeredStore, ReadModeNeverWrites) {
  Layers layers(Mode::read);
  layers.store->put(k_key, bytes_of("value"));
  EXPECT_EQ(layers.server.puts, 0);
  EXPECT_TRUE(layers.server.entries.empty());
  EXPECT_EQ(layers.local.entries.count(k_key), 1u);
}

TEST(LayeredStore, DamagedEntriesAreMissesAndReplaced) {
  for (const std::vector<std::byte>& bad :
       {bytes_of("garbage"), store::encode_entry(k_other, bytes_of("another key's entry"))}) {
    Layers layers;
    std::vector<std::byte> flipped = store::encode_entry(k_key, bytes_of("value"));
    flipped.back() ^= std::byte{1};
    for (const std::vector<std::byte>& entry : {bad, flipped}) {
      layers.server.entries[k_key] = entry;
      EXPECT_EQ(layers.store->get(k_key), std::nullopt);
      EXPECT_EQ(layers.local.entries.count(k_key), 0u);   // never written back
    }
    layers.store->put(k_key, bytes_of("value"));
    EXPECT_EQ(layers.server.only_if_missing, std::vector<bool>{false});   // replaced, not kept
    EXPECT_TRUE(store::decode_entry(layers.server.entries.at(k_key), k_key));
    store::Counters counts = layers.store->remote_counters();
    EXPECT_EQ(counts["remote.damaged"], 2u);
    EXPECT_EQ(counts["remote.misses"], 2u);
    ASSERT_EQ(layers.warnings.size(), 1u);
    EXPECT_NE(layers.warnings[0].find("damaged"), std::string::npos);
  }
}

TEST(LayeredStore, AnUnreachableServerIsAskedOnceAndWarnedOnce) {
  Layers layers;
  layers.server.failure = Reply::Kind::unreachable;
  EXPECT_EQ(layers.store->get(k_key), std::nullopt);
  EXPECT_EQ(layers.store->get(k_other), std::nullopt);
  layers.store->put(k_key, bytes_of("value"));
  EXPECT_EQ(layers.server.gets + layers.server.puts, 1);
  EXPECT_EQ(layers.local.entries.count(k_key), 1u);   // the local cache still works
  ASSERT_EQ(layers.warnings.size(), 1u);
  EXPECT_EQ(layers.warnings[0], "kiln: warning: remote cache: the server is down; building without it");
  EXPECT_EQ(layers.store->remote_counters()["remote.errors"], 1u);
}

TEST(LayeredStore, AFailingServerIsAskedAgainButWarnedOnce) {
  Layers layers;
  layers.server.failure = Reply::Kind::failed;
  EXPECT_EQ(layers.store->get(k_key), std::nullopt);
  layers.store->put(k_key, bytes_of("value"));
  EXPECT_EQ(layers.store->get(k_other), std::nullopt);
  EXPECT_EQ(layers.server.gets + layers.server.puts, 3);
  ASSERT_EQ(layers.warnings.size(), 1u);
  EXPECT_NE(layers.warnings[0].find("compiling what it cannot give"), std::string::npos);
  EXPECT_EQ(layers.store->remote_counters()["remote.errors"], 3u);
}

TEST(LayeredStore, CountersReachTheLocalStoreOnceEach) {
  Layers layers;
  layers.store->get(k_key);
  layers.store->add_counters({{"compile.hits", 2}});
  layers.store->get(k_other);
  layers.store->add_counters({{"scan.hits", 1}});
  EXPECT_EQ(layers.local.added["remote.misses"], 2u);
  EXPECT_EQ(layers.local.added["compile.hits"], 2u);
  EXPECT_EQ(layers.local.added["scan.hits"], 1u);
}

// Scan workers are forked: they store into the local cache alone, and the build sends what they
// stored when it reads it back.
TEST(LayeredStore, WorkerProcessesUseTheLocalStoreAloneAndTheBuildSendsOnWhatTheyStored) {
  Layers layers;
  EXPECT_EQ(layers.store->get(k_key), std::nullopt);   // the server lacks it
  const pid_t child = fork();
  if (child == 0) {
    layers.store->put(k_key, bytes_of("from a worker"));
    layers.store->get(k_other);
    _exit(layers.server.puts + layers.server.gets == 1 ? 0 : 1);   // only the parent's get
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a forked process used the server";
  layers.local.put(k_key, bytes_of("from a worker"));    // what the worker's put did to the shared cache
  EXPECT_EQ(layers.store->get(k_key), bytes_of("from a worker"));
  ASSERT_EQ(layers.server.entries.count(k_key), 1u);
  EXPECT_TRUE(store::decode_entry(layers.server.entries.at(k_key), k_key));
  EXPECT_EQ(layers.store->get(k_key), bytes_of("from a worker"));
  EXPECT_EQ(layers.server.puts, 1) << "sent once";
  // Read mode: never.
  Layers reader(Mode::read);
  EXPECT_EQ(reader.store->get(k_key), std::nullopt);
  reader.local.put(k_key, bytes_of("x"));
  EXPECT_EQ(reader.store->get(k_key), bytes_of("x"));
  EXPECT_EQ(reader.server.puts, 0);
}

const KeyPair k_writer = generate_key_pair();
const KeyPair k_stranger = generate_key_pair();

std::vector<std::byte> signed_entry(const std::string& key, std::string_view value, const KeyPair& by = k_writer) {
  return sign_entry(store::encode_entry(key, bytes_of(value)), by.signing);
}

TEST(LayeredStore, AWriterWithASigningKeySignsWhatItStoresAndReadsItBack) {
  Layers writer([](RemoteSettings& s) {
    s.signing_key = k_writer.signing;
    s.verify_key = k_writer.verify;
  });
  writer.store->put(k_key, bytes_of("value"));
  const std::vector<std::byte>& stored = writer.server.entries.at(k_key);
  EXPECT_EQ(open_entry(stored, &k_writer.verify).trust, OpenedEntry::Trust::signed_by_key);
  Layers reader([](RemoteSettings& s) { s.verify_key = k_writer.verify; });
  reader.server.entries = writer.server.entries;
  EXPECT_EQ(reader.store->get(k_key), bytes_of("value"));
  EXPECT_TRUE(reader.warnings.empty());
  // Builds without a key read signed entries as they read any other.
  Layers plain;
  plain.server.entries = writer.server.entries;
  EXPECT_EQ(plain.store->get(k_key), bytes_of("value"));
}

std::vector<std::byte> tampered(const std::string& key) {
  std::vector<std::byte> entry = signed_entry(key, "value");
  entry.back() ^= std::byte{1};
  return entry;
}

TEST(LayeredStore, WithAVerifyKeyAnEntryNotSignedByItIsAMissWarnedOnceAndNeverWrittenBack) {
  const auto other_key = [](const std::string& key) { return key == k_key ? k_other : k_key; };
  const struct {
    const char* what;
    std::function<std::vector<std::byte>(const std::string&)> entry;   // the bad entry found under a key
    const char* counter;
    std::string said;
  } cases[] = {
      {"unsigned", [](const std::string& key) { return store::encode_entry(key, bytes_of("value")); },
       "remote.untrusted", "is not signed"},
      {"another key", [](const std::string& key) { return signed_entry(key, "value", k_stranger); },
       "remote.untrusted", "is signed with key " + key_id(k_stranger.verify) + ", not the verify key " +
       key_id(k_writer.verify)},
      {"a changed byte", tampered, "remote.untrusted", "signature that does not hold"},
      {"moved under another key", [&](const std::string& key) { return signed_entry(other_key(key), "value"); },
       "remote.damaged", "is damaged"},
  };
  for (const auto& c : cases) {
    Layers layers([](RemoteSettings& s) { s.verify_key = k_writer.verify; });
    for (const std::string& key : {k_key, k_other}) {
      layers.server.entries[key] = c.entry(key);
      EXPECT_EQ(layers.store->get(key), std::nullopt) << c.what;
      EXPECT_EQ(layers.local.entries.count(key), 0u) << c.what;
    }
    store::Counters counts = layers.store->remote_counters();
    EXPECT_EQ(counts[c.counter], 2u) << c.what;
    EXPECT_EQ(counts["remote.misses"], 2u) << c.what;
    EXPECT_EQ(counts["remote.hits"], 0u) << c.what;
    ASSERT_EQ(layers.warnings.size(), 1u) << c.what;
    EXPECT_NE(layers.warnings[0].find(c.said), std::string::npos) << layers.warnings[0];
    // It verifies but cannot sign: it writes nothing, so says nothing of replacing.
    EXPECT_EQ(layers.warnings[0].find("replacing"), std::string::npos) << layers.warnings[0];
    layers.store->put(k_key, bytes_of("value"));
    EXPECT_EQ(layers.server.puts, 0) << c.what;
  }
}

TEST(LayeredStore, AWriterReplacesAnEntryItCannotTrustWithOneItSigned) {
  Layers layers([](RemoteSettings& s) {
    s.signing_key = k_writer.signing;
    s.verify_key = k_writer.verify;
  });
  layers.server.entries[k_key] = signed_entry(k_key, "value", k_stranger);
  EXPECT_EQ(layers.store->get(k_key), std::nullopt);
  ASSERT_EQ(layers.warnings.size(), 1u);
  EXPECT_NE(layers.warnings[0].find("and replacing it"), std::string::npos);
  layers.store->put(k_key, bytes_of("value"));
  EXPECT_EQ(layers.server.only_if_missing, std::vector<bool>{false});
  EXPECT_EQ(open_entry(layers.server.entries.at(k_key), &k_writer.verify).trust, OpenedEntry::Trust::signed_by_key);
}

TEST(LayeredStore, ABuildStopsAskingOnceItHasWaitedItsBudgetAndSaysSoOnce) {
  Layers layers([](RemoteSettings& s) { s.budget = std::chrono::milliseconds(250); });
  layers.server.delay = std::chrono::milliseconds(100);
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    const std::string key = std::string(31, 'a') + "0123456789"[i];
    EXPECT_EQ(layers.store->get(key), std::nullopt);
    layers.store->put(key, bytes_of("value"));
  }
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_LT(took, std::chrono::milliseconds(250 + 200)) << "the budget, and a little";
  const int asked = layers.server.gets + layers.server.puts;
  EXPECT_GE(asked, 2);
  EXPECT_LE(asked, 3);
  std::chrono::milliseconds given{0};
  for (const std::chrono::milliseconds limit : layers.server.limits) {
    EXPECT_LE(limit, std::chrono::milliseconds(250));
    given = limit;
  }
  EXPECT_LT(given, std::chrono::milliseconds(100)) << "the last request had only what was left";
  ASSERT_EQ(layers.warnings.size(), 1u);
  EXPECT_NE(layers.warnings[0].find("KILN_REMOTE_CACHE_BUDGET=0.25"), std::string::npos) << layers.warnings[0];
  EXPECT_EQ(layers.store->remote_counters()["remote.errors"], 1u);
  EXPECT_EQ(layers.local.entries.size(), 10u) << "the local cache still works";
}

// A socket's time limit in whole milliseconds, and a kernel timer that fires up to a tick early, end
// the request the budget cut a little before the budget is spent: still the budget's one warning, not
// the server's "timed out".
TEST(LayeredStore, ARequestCutByTheBudgetAMomentEarlyIsStillTheBudgets) {
  for (const int early_ms : {1, 4, 10}) {
    Layers layers([](RemoteSettings& s) { s.budget = std::chrono::milliseconds(250); });
    layers.server.delay = std::chrono::milliseconds(100);
    layers.server.early = std::chrono::milliseconds(early_ms);
    for (int i = 0; i < 4; ++i) {
      const std::string key = std::string(31, 'b') + "0123456789"[i];
      EXPECT_EQ(layers.store->get(key), std::nullopt);
    }
    // Two answers and one cut at the budget, then no more (two, where the answers alone took it all).
    EXPECT_GE(layers.server.gets, 2);
    EXPECT_LE(layers.server.gets, 3);
    ASSERT_EQ(layers.warnings.size(), 1u) << early_ms << " ms early";
    EXPECT_NE(layers.warnings[0].find("KILN_REMOTE_CACHE_BUDGET=0.25"), std::string::npos) << layers.warnings[0];
    EXPECT_EQ(layers.store->remote_counters()["remote.errors"], 1u);
  }
}

// A server that fails at once (a refused connection) is the server's trouble, said as such, however
// small the budget: the slack above is for a request that ran to its limit.
TEST(LayeredStore, AServerThatFailsAtOnceIsNotTheBudgetsHoweverSmall) {
  for (const int budget_ms : {10, 30, 250}) {
    Layers layers([budget_ms](RemoteSettings& s) { s.budget = std::chrono::milliseconds(budget_ms); });
    layers.server.failure = Reply::Kind::unreachable;
    EXPECT_EQ(layers.store->get(std::string(32, 'c')), std::nullopt);
    ASSERT_EQ(layers.warnings.size(), 1u);
    EXPECT_EQ(layers.warnings[0], "kiln: warning: remote cache: the server is down; building without it")
        << budget_ms << " ms budget";
  }
}

TEST(LayeredStore, KeysThatCannotNameAnEntryNeverReachTheServer) {
  Layers layers;
  EXPECT_EQ(layers.store->get("../../etc/passwd"), std::nullopt);
  layers.store->put("not-a-key", bytes_of("x"));
  EXPECT_EQ(layers.server.gets + layers.server.puts, 0);
}

}  // namespace
}  // namespace kiln::remote
