// The runtime's cache of compiled kernels: memory, then the user's store, then a compile; one compile
// per key however many threads miss it; a failure is not cached; a damaged or unusable entry is a miss
// that the compile replaces; a cache directory that cannot be written means memory only, with one
// warning, never a failure.
#include "rtc/compiled_cache.hpp"
#include "store/entry_format.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <thread>

namespace kiln::rtc {
namespace {

namespace fs = std::filesystem;

const std::string k_key = "0123456789abcdef0123456789abcdef";

Bytes bytes_of(std::string_view text) {
  Bytes out(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) out[i] = static_cast<std::byte>(text[i]);
  return out;
}

std::string text_of(const Bytes& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

bool usable(const Bytes& b) { return !b.empty() && b[0] == std::byte{'i'}; }   // "image..."

class CompiledCacheTest : public ::testing::Test {
protected:
  CompiledCacheTest() {
    m_dir = fs::temp_directory_path() /
            ("kiln-rtc-cache-test-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
  }
  ~CompiledCacheTest() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  store::CacheSettings on_disk() const { return store::CacheSettings{true, m_dir, 0}; }

  // A compile that counts itself and returns `text`.
  CompiledCache::Produce compile(std::string text) {
    return [this, text]() -> Result<Bytes> {
      ++m_compiles;
      return bytes_of(text);
    };
  }
  fs::path m_dir;
  std::atomic<int> m_compiles{0};
};

TEST_F(CompiledCacheTest, ASecondLookupInTheProcessIsAMemoryHit) {
  CompiledCache cache(on_disk());
  Source source{};
  Result<SharedBytes> first = cache.get_or_produce(k_key, compile("image-1"), usable, &source);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(source, Source::produced);
  Result<SharedBytes> second = cache.get_or_produce(k_key, compile("image-2"), usable, &source);
  ASSERT_TRUE(second);
  EXPECT_EQ(source, Source::memory);
  EXPECT_EQ(text_of(**second), "image-1");
  EXPECT_EQ(m_compiles, 1);
  EXPECT_EQ(cache.counters().compiles, 1u);
  EXPECT_EQ(cache.counters().memory_hits, 1u);
}

TEST_F(CompiledCacheTest, AnotherProcessFindsTheEntryOnDisk) {
  { CompiledCache writer(on_disk()); ASSERT_TRUE(writer.get_or_produce(k_key, compile("image-1"), usable)); }
  {
    CompiledCache reader(on_disk());   // a new process: nothing in memory
    Source source{};
    Result<SharedBytes> found = reader.get_or_produce(k_key, compile("image-2"), usable, &source);
    ASSERT_TRUE(found);
    EXPECT_EQ(source, Source::disk);
    EXPECT_EQ(text_of(**found), "image-1");
    EXPECT_EQ(m_compiles, 1);
    EXPECT_EQ(reader.counters().disk_hits, 1u);
    EXPECT_EQ(reader.counters().disk_bytes_read, 7u);
  }   // the process ends: its hits are saved
  // The store's statistics (kiln cache stats) count what the runtime did.
  store::LocalStore store(m_dir, 0);
  EXPECT_EQ(store.counters()["runtime.compiles"], 1u);
  EXPECT_EQ(store.counters()["runtime.hits"], 1u);
}

TEST_F(CompiledCacheTest, ADamagedEntryIsAMissAndIsReplaced) {
  { CompiledCache writer(on_disk()); ASSERT_TRUE(writer.get_or_produce(k_key, compile("image-1"), usable)); }
  const fs::path entry = store::LocalStore(m_dir, 0).entry_path(k_key);
  { std::ofstream(entry, std::ios::binary | std::ios::trunc) << "kiln-store 1 garbage"; }
  CompiledCache reader(on_disk());
  Source source{};
  Result<SharedBytes> found = reader.get_or_produce(k_key, compile("image-2"), usable, &source);
  ASSERT_TRUE(found);
  EXPECT_EQ(source, Source::produced);
  EXPECT_EQ(text_of(**found), "image-2");
  CompiledCache third(on_disk());
  ASSERT_TRUE(third.get_or_produce(k_key, compile("image-3"), usable, &source));
  EXPECT_EQ(source, Source::disk) << "the compile replaced the damaged entry";
}

TEST_F(CompiledCacheTest, ASoundEntryWhoseValueIsUnusableIsAMiss) {
  { CompiledCache writer(on_disk()); writer.put(k_key, bytes_of("not an image")); }
  CompiledCache reader(on_disk());
  Result<SharedBytes> found = reader.get_or_produce(k_key, compile("image-2"), usable);
  ASSERT_TRUE(found);
  EXPECT_EQ(text_of(**found), "image-2");
}

TEST_F(CompiledCacheTest, AFailedCompileIsReportedAndNotCached) {
  CompiledCache cache(on_disk());
  Result<SharedBytes> failed = cache.get_or_produce(k_key, [] { return Result<Bytes>(Error{"k.cu: error"}); }, usable);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "k.cu: error");
  EXPECT_EQ(cache.counters().compile_failures, 1u);
  ASSERT_TRUE(cache.get_or_produce(k_key, compile("image-1"), usable));
  EXPECT_EQ(m_compiles, 1);
}

TEST_F(CompiledCacheTest, ThreadsMissingOneKeyCompileItOnce) {
  CompiledCache cache(on_disk());
  const auto slow = [this]() -> Result<Bytes> {
    ++m_compiles;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return bytes_of("image-1");
  };
  std::vector<std::thread> threads;
  std::atomic<int> right{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      Result<SharedBytes> r = cache.get_or_produce(k_key, slow, usable);
      if (r && text_of(**r) == "image-1") ++right;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(right, 8);
  EXPECT_EQ(m_compiles, 1);
}

TEST_F(CompiledCacheTest, AnUnwritableDirectoryMeansMemoryOnlyWithOneWarning) {
  fs::create_directories(m_dir);
  { std::ofstream(m_dir / "file") << "x"; }
  CompiledCache cache(store::CacheSettings{true, m_dir / "file" / "kiln", 0});   // under a file: ENOTDIR
  ::testing::internal::CaptureStderr();
  Source source{};
  ASSERT_TRUE(cache.get_or_produce(k_key, compile("image-1"), usable, &source));
  ASSERT_TRUE(cache.get_or_produce("1123456789abcdef0123456789abcdef", compile("image-2"), usable));
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(source, Source::produced);
  EXPECT_TRUE(cache.directory().empty());
  EXPECT_NE(warnings.find("kiln: warning: cannot write the cache directory " + (m_dir / "file" / "kiln").string()),
            std::string::npos) << warnings;
  EXPECT_NE(warnings.find("kept in memory only"), std::string::npos);
  EXPECT_EQ(warnings.find("warning", warnings.find("warning") + 1), std::string::npos) << "one warning: " << warnings;
  ASSERT_TRUE(cache.get_or_produce(k_key, compile("image-3"), usable, &source));
  EXPECT_EQ(source, Source::memory);
}

TEST_F(CompiledCacheTest, NoDirectoryAtAllWarnsOnce) {
  CompiledCache cache(store::CacheSettings{false, {}, 0});   // no HOME, no variables
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.get_or_produce(k_key, compile("image-1"), usable));
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("no cache directory"), std::string::npos) << warnings;
}

TEST_F(CompiledCacheTest, TurnedOffByTheUserIsMemoryOnlyAndSilent) {
  CompiledCache cache(store::CacheSettings{false, m_dir, 0});   // KILN_CACHE=0
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.get_or_produce(k_key, compile("image-1"), usable));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(fs::exists(m_dir));
}

TEST_F(CompiledCacheTest, BadCacheVariablesAreAWarningNotAFailure) {
  CompiledCache cache(store::CacheSettings{false, {}, 0}, "KILN_CACHE=maybe: not one of 0, ...");
  ::testing::internal::CaptureStderr();
  ASSERT_TRUE(cache.get_or_produce(k_key, compile("image-1"), usable));
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("KILN_CACHE=maybe"), std::string::npos);
}

}  // namespace
}  // namespace kiln::rtc
