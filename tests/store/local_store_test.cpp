// The local store on a real directory: entries come back whole or not at all, under concurrent
// writers (threads and processes) and a writer killed mid-write; a damaged entry is a miss and is
// replaced; eviction removes the least recently used first.
#include "store/entry_format.hpp"
#include "store/entry_reader.hpp"
#include "store/harvest_record.hpp"
#include "store/local_store.hpp"
#include "store/stats_file.hpp"
#include "platform/files.hpp"

#include "test_process.hpp"

#include <gtest/gtest.h>

#if !defined(_WIN32)
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <fstream>
#include <random>
#include <thread>

namespace kiln::store {
namespace {

namespace fs = std::filesystem;

std::string key(int n) {
  char text[33];
  std::snprintf(text, sizeof text, "%032x", n * 7919 + 17);
  return text;
}

std::vector<std::byte> value(std::size_t size, int seed) {
  std::vector<std::byte> v(size);
  for (std::size_t i = 0; i < size; ++i) v[i] = static_cast<std::byte>((i * 31 + static_cast<std::size_t>(seed)) & 0xff);
  return v;
}

class LocalStoreTest : public ::testing::Test {
protected:
  LocalStoreTest() {
    static std::atomic<unsigned> counter{0};
    // A child process (test_process.hpp) works in its parent's directory: "<role>:<directory>".
    const std::string role = test::child_role();
    if (const std::size_t colon = role.find(':'); colon != std::string::npos) {
      m_dir = fs::path(role.substr(colon + 1));
      return;
    }
    m_dir = fs::temp_directory_path() / ("kiln-store-test-" + std::to_string(std::random_device{}()) + "-" +
                                         std::to_string(counter++) + "-" + std::to_string(std::random_device{}()));
  }
  ~LocalStoreTest() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  std::size_t files_under(const fs::path& dir) const {
    std::size_t n = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file()) ++n;
    return n;
  }
  void set_used(const fs::path& path, int seconds_ago) const {
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::seconds(seconds_ago));
  }
  fs::path m_dir;
};

TEST_F(LocalStoreTest, PutThenGetAndCounters) {
  LocalStore store(m_dir, 0);
  EXPECT_FALSE(store.get(key(1)));
  store.put(key(1), value(1000, 1));
  EXPECT_EQ(LocalStore(m_dir, 0).get(key(1)), value(1000, 1));
  EXPECT_TRUE(fs::exists(m_dir / key(1).substr(0, 2) / key(1)));
  EXPECT_TRUE(fs::exists(m_dir / "CACHEDIR.TAG"));
  store.add_counters({{"compile.hits", 3}, {"compile.misses", 1}});
  store.add_counters({{"compile.hits", 2}});
  const Counters c = LocalStore(m_dir, 0).counters();
  EXPECT_EQ(c.at("compile.hits"), 5u);
  EXPECT_EQ(c.at("compile.misses"), 1u);
  EXPECT_EQ(c.at("entries"), 1u);
  EXPECT_EQ(c.at("size"), fs::file_size(store.entry_path(key(1))));
  EXPECT_EQ(store.usage().entries, 1u);
}

TEST_F(LocalStoreTest, TheLoadersUtf8ReaderFindsWhatTheStoreWrote) {
  // The loader's direct hits read entries by UTF-8 text, never a std::filesystem::path: the same file
  // as entry_path names, with or without a separator at the directory's end.
  LocalStore store(m_dir, 0);
  store.put(key(4), value(300, 4));
  const std::string directory = m_dir.string();
  EXPECT_EQ(fs::path(entry_path_utf8(directory, key(4))), store.entry_path(key(4)));
  EXPECT_EQ(fs::path(entry_path_utf8(directory + "/", key(4))), store.entry_path(key(4)));   // one separator
  EXPECT_EQ(read_entry_utf8(directory, key(4)), value(300, 4));
  EXPECT_FALSE(read_entry_utf8(directory, key(5)));          // absent
  EXPECT_FALSE(read_entry_utf8(directory, "not-a-key"));      // refused before any path is made
  EXPECT_FALSE(read_entry_utf8(directory + "/missing", key(4)));
}

TEST_F(LocalStoreTest, TheSharedReaderHandsOutThePayloadAlignedAtItsStart) {
  // The header's length varies with the payload's size (1 to 5 digits here): the payload is moved to
  // the start of its memory, where a direct record's package lies 8-byte aligned.
  LocalStore store(m_dir, 0);
  const std::string directory = m_dir.string();
  int k = 10;
  for (const std::size_t size : {1u, 17u, 300u, 6833u, 70001u}) {
    store.put(key(k), value(size, k));
    const std::optional<SharedEntry> entry = read_shared_entry_utf8(directory, key(k));
    ASSERT_TRUE(entry) << size;
    EXPECT_EQ(entry->payload.data(), entry->file.get()) << size;
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(entry->payload.data()) % 8, 0u) << size;
    EXPECT_EQ(std::vector<std::byte>(entry->payload.begin(), entry->payload.end()), value(size, k)) << size;
    ++k;
  }
  EXPECT_FALSE(read_shared_entry_utf8(directory, key(99)));
  EXPECT_FALSE(read_shared_entry_utf8(directory, "not-a-key"));
}

TEST_F(LocalStoreTest, ADamagedEntryIsAMissAndIsReplaced) {
  LocalStore store(m_dir, 0);
  store.put(key(2), value(4000, 2));
  const fs::path path = store.entry_path(key(2));
  const auto damage = [&](const std::function<void(std::string&)>& how) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    how(text);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  };
  damage([](std::string& t) { t[t.size() - 10] ^= 0x01; });   // a flipped bit in the payload
  EXPECT_FALSE(store.get(key(2)));
  store.put(key(2), value(4000, 2));
  EXPECT_EQ(store.get(key(2)), value(4000, 2)) << "the put replaced the damaged entry";
  damage([](std::string& t) { t.resize(t.size() / 2); });     // truncated
  EXPECT_FALSE(store.get(key(2)));
  damage([](std::string& t) { t.clear(); });                  // empty
  EXPECT_FALSE(store.get(key(2)));
  // A sound entry of another key, renamed into this one's place.
  store.put(key(3), value(10, 3));
  fs::remove(path);   // (MinGW's libstdc++ 12 refuses copy_file's overwrite_existing)
  fs::copy_file(store.entry_path(key(3)), path);
  EXPECT_FALSE(store.get(key(2)));
  EXPECT_FALSE(store.get("not-a-key")) << "nothing outside the key space";
}

TEST_F(LocalStoreTest, ConcurrentWritersFromThreadsAndProcessesLeaveWholeEntries) {
  // Four processes and four threads write the same ten keys, each writer its own value (all of one
  // size), while this thread reads: every read is a miss or one writer's whole value.
  const std::size_t size = 200'000;
  const auto writer = [&](int id) {
    LocalStore store(m_dir, 0);
    for (int round = 0; round < 15; ++round)
      for (int k = 0; k < 10; ++k) store.put(key(k), value(size, id));
  };
  if (const std::string role = test::child_role(); !role.empty()) {
    writer(std::stoi(role.substr(0, role.find(':'))));
    test::exit_child(0);
  }
  std::vector<test::ChildProcess> children;
  for (int p = 0; p < 4; ++p) {
    children.push_back(test::ChildProcess::start("LocalStoreTest.ConcurrentWritersFromThreadsAndProcessesLeaveWholeEntries",
                                                 std::to_string(p) + ":" + m_dir.string()));
  }
  std::vector<std::thread> threads;
  for (int t = 4; t < 8; ++t) threads.emplace_back(writer, t);
  LocalStore reader(m_dir, 0);
  int torn = 0;
  for (int round = 0; round < 200; ++round) {
    if (const std::optional<std::vector<std::byte>> got = reader.get(key(round % 10))) {
      bool whole = false;
      for (int id = 0; id < 8 && !whole; ++id) whole = *got == value(size, id);
      if (!whole) ++torn;
    }
  }
  for (std::thread& t : threads) t.join();
  for (test::ChildProcess& child : children) EXPECT_EQ(child.wait(), 0);
  EXPECT_EQ(torn, 0);
  for (int k = 0; k < 10; ++k) EXPECT_TRUE(reader.get(key(k))) << k;
  EXPECT_EQ(reader.usage().entries, 10u);
  EXPECT_EQ(files_under(m_dir / "tmp"), 0u) << "every temporary file was renamed";
}

TEST_F(LocalStoreTest, AKilledWriterLeavesNoVisiblePartialEntry) {
  // A child writes large entries until it is killed; what it left is whole entries or nothing, and
  // its temporary file goes when the next store writes to the directory (reading leaves it be).
  const std::size_t size = 8'000'000;
  if (test::child_role().rfind("writer:", 0) == 0) {
    LocalStore store(m_dir, 0);
    for (int k = 0;; k = (k + 1) % 50) store.put(key(k), value(size, 9));
  }
  test::ChildProcess child =
      test::ChildProcess::start("LocalStoreTest.AKilledWriterLeavesNoVisiblePartialEntry", "writer:" + m_dir.string());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  child.kill();
  child.wait();
  LocalStore store(m_dir, 0);
  for (int k = 0; k < 50; ++k) {
    const std::optional<std::vector<std::byte>> got = store.get(key(k));
    if (got) {
      EXPECT_EQ(*got, value(size, 9)) << k;
    }
  }
  store.put(key(60), value(10, 1));
  EXPECT_EQ(files_under(m_dir / "tmp"), 0u) << "the killed writer's temporary file is removed";
}

TEST_F(LocalStoreTest, EvictionRemovesTheLeastRecentlyUsedFirst) {
  LocalStore store(m_dir, 0);
  for (int k = 0; k < 6; ++k) store.put(key(k), value(1000, k));
  // Written long ago in the order 0..5; then key 0 is used, so it is the most recent.
  for (int k = 0; k < 6; ++k) set_used(store.entry_path(key(k)), 1000 - k);
  ASSERT_TRUE(store.get(key(0)));
  const std::uint64_t entry = fs::file_size(store.entry_path(key(0)));
  const Usage removed = store.trim(entry * 3);
  EXPECT_EQ(removed.entries, 3u);
  for (int k : {1, 2, 3}) EXPECT_FALSE(store.get(key(k))) << k << " was among the least recently used";
  for (int k : {0, 4, 5}) EXPECT_TRUE(store.get(key(k))) << k;
  EXPECT_EQ(store.counters().at("size"), entry * 3);
}

TEST_F(LocalStoreTest, AHitMarksTheEntryUsedUnlessItWasUsedInTheLastMinute) {
  LocalStore store(m_dir, 0);
  store.put(key(1), value(100, 1));
  const fs::path path = store.entry_path(key(1));
  const auto seconds_since_use = [&] {
    return std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - fs::last_write_time(path))
        .count();
  };
  set_used(path, 30);
  ASSERT_TRUE(store.get(key(1)));
  EXPECT_GE(seconds_since_use(), 29) << "used 30 s ago: a hit writes nothing (the run-time cache's hits stay reads)";
  set_used(path, 120);
  ASSERT_TRUE(store.get(key(1)));
  EXPECT_LE(seconds_since_use(), 5) << "used two minutes ago: the hit makes it the most recent";
}

TEST_F(LocalStoreTest, APutOverTheMaximumEvictsDownToNinetyPercent) {
  const std::uint64_t entry = encode_entry(key(0), value(1000, 0)).size();
  LocalStore store(m_dir, entry * 4);
  for (int k = 0; k < 4; ++k) {
    store.put(key(k), value(1000, k));
    set_used(store.entry_path(key(k)), 100 - k);
  }
  EXPECT_EQ(store.usage().entries, 4u);
  store.put(key(4), value(1000, 4));   // five entries: over the maximum
  EXPECT_EQ(store.usage().entries, 3u) << "down to 90% of four entries";
  EXPECT_FALSE(store.get(key(0)));
  EXPECT_FALSE(store.get(key(1)));
  EXPECT_TRUE(store.get(key(4)));
}

TEST_F(LocalStoreTest, ClearRemovesEntriesAndCounters) {
  LocalStore store(m_dir, 0);
  for (int k = 0; k < 3; ++k) store.put(key(k), value(100, k));
  store.add_counters({{"scan.hits", 2}});
  store.clear();
  EXPECT_EQ(store.usage().entries, 0u);
  EXPECT_EQ(store.counters().count("scan.hits"), 0u);
  EXPECT_FALSE(store.get(key(0)));
}

TEST_F(LocalStoreTest, ClearRemovesTheHarvestRecordsToo) {
  LocalStore store(m_dir, 0);
  store.put(key(0), value(100, 0));
  HarvestRecord record{"scale<double>", "ops::scale<double>", "kernels/scale.cu", "sm_90", "app.kiln", "app", 7};
  write_harvest_record(m_dir, record);
  record.target = "sm_80";
  write_harvest_record(m_dir, record);
  ASSERT_EQ(read_harvest_records(m_dir).records.size(), 2u);
  const LocalStore::Cleared cleared = store.clear();
  EXPECT_TRUE(cleared.failures.empty()) << cleared.failures.front();
  EXPECT_EQ(cleared.removed.entries, 1u);
  EXPECT_EQ(cleared.harvest_records, 2u);
  EXPECT_TRUE(read_harvest_records(m_dir).records.empty());
}

TEST_F(LocalStoreTest, ClearRemovesALinkedHarvestFolderAsALink) {
  LocalStore store(m_dir, 0);
  const fs::path outside = m_dir.parent_path() / (m_dir.filename().string() + "-harvest-outside");
  fs::create_directories(outside);
  fs::create_directories(m_dir);
  std::ofstream(outside / "keep") << "not the cache's";
  std::error_code linked;
  fs::create_directory_symlink(outside, harvest_directory(m_dir), linked);
  if (linked) GTEST_SKIP() << "no symbolic links here: " << linked.message();
  const LocalStore::Cleared cleared = store.clear();
  EXPECT_TRUE(cleared.failures.empty()) << cleared.failures.front();
  EXPECT_EQ(cleared.harvest_records, 0u);
  EXPECT_TRUE(fs::exists(outside / "keep")) << "clear followed the link";
  EXPECT_FALSE(fs::exists(fs::symlink_status(harvest_directory(m_dir)))) << "the link itself goes";
  fs::remove_all(outside);
}

#if !defined(_WIN32)
// Whether `get` misses within five seconds, in a child process: a get that blocks (a FIFO) or reads
// without end (/dev/zero) is killed there rather than hang the test run.
bool misses_without_blocking(const std::function<bool()>& get) {
  const pid_t child = fork();
  if (child == 0) {
    alarm(5);
    _exit(get() ? 1 : 0);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST_F(LocalStoreTest, AnEntryThatIsAFifoSocketDeviceOrLinkIsAMissWithoutBlocking) {
  LocalStore store(m_dir, 0);
  store.put(key(9), value(100, 9));
  const std::string sound = store.entry_path(key(9)).string();
  const auto make = [&](int n, const std::function<void(const std::string&)>& how) {
    fs::create_directories(store.entry_path(key(n)).parent_path());
    how(store.entry_path(key(n)).string());
    return key(n);
  };
  const std::string fifo = make(1, [](const std::string& p) { ASSERT_EQ(mkfifo(p.c_str(), 0666), 0); });
  const std::string socket_key = make(2, [](const std::string& p) {
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    ASSERT_LT(p.size(), sizeof address.sun_path);
    std::memcpy(address.sun_path, p.c_str(), p.size() + 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    listen(fd, 1);   // left open: a live socket
  });
  const std::string zero = make(3, [](const std::string& p) { fs::create_symlink("/dev/zero", p); });
  const std::string null = make(4, [](const std::string& p) { fs::create_symlink("/dev/null", p); });
  const std::string link = make(5, [&](const std::string& p) { fs::create_symlink(sound, p); });
  const std::string directory = make(6, [](const std::string& p) { fs::create_directory(p); });
  for (const std::string& k : {fifo, socket_key, zero, null, link, directory})
    EXPECT_TRUE(misses_without_blocking([&] { return LocalStore(m_dir, 0).get(k).has_value(); })) << k;
  EXPECT_EQ(store.get(key(9)), value(100, 9)) << "the linked entry itself still reads";
  // A put replaces what stood there with an entry.
  store.put(fifo, value(10, 1));
  EXPECT_EQ(store.get(fifo), value(10, 1));
}

TEST_F(LocalStoreTest, AFileLargerThanAnyEntryIsAMissWithoutBeingRead) {
  LocalStore store(m_dir, 0);
  const fs::path path = store.entry_path(key(1));
  fs::create_directories(path.parent_path());
  std::ofstream(path).put('k');
  fs::resize_file(path, k_max_entry_size + 1);   // sparse: nothing to read but zeros
  const long before = test::peak_memory_kib();
  EXPECT_FALSE(store.get(key(1)));
  EXPECT_LT(test::peak_memory_kib() - before, 64 * 1024) << "KiB more at peak: the file was read";
}

TEST_F(LocalStoreTest, AValueLargerThanAnyEntryIsNotStored) {
  // Pages that are never written cost no memory (and read as zeros if a put did read them).
  void* pages = mmap(nullptr, k_max_payload_size + 1, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  LocalStore store(m_dir, 0);
  store.put(key(1), std::span(static_cast<const std::byte*>(pages), k_max_payload_size + 1));
  munmap(pages, k_max_payload_size + 1);
  EXPECT_FALSE(fs::exists(store.entry_path(key(1))));
  store.put(key(1), value(10, 1));
  EXPECT_EQ(store.get(key(1)), value(10, 1));
}

TEST_F(LocalStoreTest, StatsThatAreAFifoReadAsZerosWithoutBlocking) {
  fs::create_directories(m_dir);
  ASSERT_EQ(mkfifo((m_dir / "stats").c_str(), 0666), 0);
  EXPECT_TRUE(misses_without_blocking([&] { return !LocalStore(m_dir, 0).counters().empty(); }));
  EXPECT_TRUE(misses_without_blocking([&] {
    LocalStore(m_dir, 0).add_counters({{"compile.hits", 1}});   // replaces the FIFO by its rename
    return LocalStore(m_dir, 0).counters().at("compile.hits") != 1;
  }));
}
#endif


TEST_F(LocalStoreTest, ClearNeverFollowsALinkedShardOutOfTheStore) {
  LocalStore store(m_dir, 0);
  store.put(key(1), value(100, 1));
  // Outside the store, a directory holding what looks like an entry, linked in as a shard.
  const fs::path outside = m_dir.parent_path() / (m_dir.filename().string() + "-outside");
  fs::create_directories(outside);
  const std::string name = "ee" + std::string(30, '1');
  std::ofstream(outside / name) << "not the cache's";
  std::error_code linked;
  fs::create_directory_symlink(outside, m_dir / "ee", linked);
  if (linked) GTEST_SKIP() << "no symbolic links here: " << linked.message();
  EXPECT_EQ(store.usage().entries, 1u) << "the linked shard is not counted";
  EXPECT_EQ(store.trim(1).entries, 1u) << "trim removes only the store's own entry";
  store.put(key(1), value(100, 1));
  const LocalStore::Cleared cleared = store.clear();
  EXPECT_TRUE(cleared.failures.empty()) << cleared.failures.front();
  EXPECT_EQ(cleared.removed.entries, 1u);
  EXPECT_TRUE(fs::exists(outside / name)) << "clear removed a file outside the store";
  EXPECT_FALSE(fs::exists(fs::symlink_status(m_dir / "ee"))) << "the link itself goes";
  fs::remove_all(outside);
}

// Links where the store's own folders and files belong (placed by anyone who can write the cache
// directory) lead outside it: a put writes nothing through them, neither the entry, nor its
// temporary file, nor the lock of the counters; the entry is then a miss.
TEST_F(LocalStoreTest, APutWritesNothingThroughALinkWhereTheStoresOwnFoldersBelong) {
  const fs::path outside = m_dir.parent_path() / (m_dir.filename().string() + "-outside");
  fs::create_directories(outside);
  fs::create_directories(m_dir);
  const fs::path shard = store::entry_path(m_dir, key(1)).parent_path();
  std::error_code linked;
  fs::create_directory_symlink(outside, shard, linked);
  if (linked) GTEST_SKIP() << "no symbolic links here: " << linked.message();
  LocalStore store(m_dir, 0);
  store.put(key(1), value(100, 1));
  EXPECT_TRUE(fs::is_empty(outside)) << "an entry was written through a linked shard";
  EXPECT_FALSE(store.get(key(1))) << "the put went nowhere, so the entry is a miss";

  // tmp/ and stats.lock linked out too: another entry, in a shard of the store's own.
  fs::remove(shard);
  fs::remove_all(m_dir / "tmp");
  fs::create_directory_symlink(outside, m_dir / "tmp");
#if !defined(_WIN32)   // Windows opens a link at stats.lock (platform::open_for_writing)
  fs::remove(m_dir / "stats.lock");
  fs::create_symlink(outside / "created-by-the-lock", m_dir / "stats.lock");
#endif
  store.put(key(2), value(100, 2));
  EXPECT_TRUE(fs::is_empty(outside)) << "written through tmp/ or stats.lock: " << fs::directory_iterator(outside)->path();
  EXPECT_FALSE(store.get(key(2)));
  fs::remove_all(outside);
}

#if !defined(_WIN32)
// Any user who can read stats.lock can flock it (mode 0644 as the umask leaves it) and never let go:
// the counters then wait k_stats_lock_wait and are skipped, and the entry itself is stored.
TEST_F(LocalStoreTest, ACounterLockHeldForEverDelaysAnUpdateOnlySoLong) {
  LocalStore store(m_dir, 0);
  store.put(key(1), value(100, 1));
  const int held = ::open((m_dir / "stats.lock").c_str(), O_RDONLY);
  ASSERT_GE(held, 0);
  ASSERT_TRUE(platform::lock_file(held, /*wait=*/false));   // another open file: flock conflicts with it
  const auto start = std::chrono::steady_clock::now();
  bool changed = false;
  const Status locked = update_stats(m_dir, [&](Counters&) { changed = true; });
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(locked.ok());
  EXPECT_NE(locked.error().message.find("another process held the lock on "), std::string::npos) << locked.error().message;
  EXPECT_FALSE(changed);
  EXPECT_GE(waited, k_stats_lock_wait) << "it gave up before its time";
  store.put(key(2), value(100, 2));   // waits as long, then stores the entry without its counters
  EXPECT_TRUE(store.get(key(2)));
  EXPECT_EQ(store.counters()["entries"], 1u) << "the second put counted under a lock it never had";
  ::close(held);
  store.put(key(3), value(100, 3));
  EXPECT_EQ(store.counters()["entries"], 2u) << "the lock is free again";
}
#endif

TEST_F(LocalStoreTest, ClearNamesWhatItCannotRemove) {
  LocalStore store(m_dir, 0);
  store.put(key(1), value(100, 1));
  const fs::path shard = store.entry_path(key(1)).parent_path();
  if (const std::string why = test::freeze_directory(shard); !why.empty()) GTEST_SKIP() << why;
  const LocalStore::Cleared cleared = store.clear();
  test::free_directory(shard);
  ASSERT_EQ(cleared.failures.size(), 1u);
  EXPECT_EQ(cleared.failures[0].rfind(store.entry_path(key(1)).string() + ": cannot remove it: ", 0), 0u)
      << cleared.failures[0];
  EXPECT_EQ(cleared.removed.entries, 0u);
  EXPECT_TRUE(store.get(key(1)));
}

TEST_F(LocalStoreTest, AStoreThatCannotBeWrittenOnlyMisses) {
  LocalStore store("/proc/kiln-cannot-exist", 0);
  store.put(key(1), value(10, 1));
  store.add_counters({{"compile.hits", 1}});
  EXPECT_FALSE(store.get(key(1)));
}

}  // namespace
}  // namespace kiln::store
