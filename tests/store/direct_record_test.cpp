// Direct records (store/direct_record.hpp): what the compile library writes reads back as written and
// nothing else does; a file that changed in any way ccache's direct mode would see (size, times,
// another file at the path, a path that now names a file) fails the check; the query changes with
// every input and with the variables that steer the compiler search.
#include "store/direct_record.hpp"

#include "test_process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <span>
#include <thread>

namespace kiln::store {
namespace {

namespace fs = std::filesystem;

std::vector<std::byte> bytes(const std::string& text) {
  const auto view = std::as_bytes(std::span(text.data(), text.size()));
  return {view.begin(), view.end()};
}

class DirectRecordTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("kiln-direct-record-" + std::to_string(test::process_id()));
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = m_dir / name;
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path.string();
  }
  DirectRecord record_of(const std::vector<std::string>& paths) {
    DirectRecord record{"query", std::string(32, 'a'), "ops::scale<double>", {}, package()};
    for (const std::string& p : paths) record.files.push_back(identity_of(p));
    return record;
  }
  // Stands for the compiled package a record carries: any bytes, for the record.
  std::span<const std::byte> package() const { return std::as_bytes(std::span(m_package)); }
  fs::path m_dir;
  std::string m_package = std::string("\x89KILN compiled package", 23) + std::string(5, '\0');
};

TEST_F(DirectRecordTest, ARecordReadsBackAsWritten) {
  DirectRecord record = record_of({write("libnvrtc.so.13", "nvrtc"), write("with space.so", "x")});
  record.files.push_back(identity_of((m_dir / "absent.so").string()));
  const std::vector<std::byte> encoded = bytes(encode_direct_record(record));
  const std::optional<DirectRecord> decoded = decode_direct_record(encoded);
  ASSERT_TRUE(decoded);
  EXPECT_TRUE(std::ranges::equal(decoded->package, package())) << "the package it carries";
  EXPECT_EQ(decoded->package.data(), encoded.data() + 24) << "in place, where it starts 8-byte aligned";
  EXPECT_EQ(decoded->query, "query");
  EXPECT_EQ(decoded->entry_key, record.entry_key);
  EXPECT_EQ(decoded->expression, "ops::scale<double>");
  ASSERT_EQ(decoded->files.size(), 3u);
  EXPECT_EQ(decoded->files[1].path, (m_dir / "with space.so").string());
  EXPECT_FALSE(decoded->files[2].present);
  EXPECT_TRUE(files_unchanged(*decoded));
}

TEST_F(DirectRecordTest, OnlyAWholeRecordDecodes) {
  const std::string text = encode_direct_record(record_of({write("a.so", "a")}));
  ASSERT_TRUE(decode_direct_record(bytes(text)));
  for (std::size_t cut = 0; cut < text.size(); ++cut)
    EXPECT_FALSE(decode_direct_record(bytes(text.substr(0, cut)))) << "cut short at " << cut;
  EXPECT_FALSE(decode_direct_record(bytes(text + "x"))) << "bytes after it";
  EXPECT_FALSE(decode_direct_record(bytes("kiln-direct 3" + text.substr(13))));
  EXPECT_FALSE(decode_direct_record(bytes("kiln-direct 1" + text.substr(13)))) << "version 1 carried no package";
  std::string padded = text;
  padded[14] = '\x01';
  EXPECT_FALSE(decode_direct_record(bytes(padded))) << "the two bytes before the package are 0";
  std::string longer = text;
  longer[16] = static_cast<char>(longer[16] + 1);
  EXPECT_FALSE(decode_direct_record(bytes(longer))) << "a package size one past the package";
  DirectRecord no_file{"query", std::string(32, 'a'), "k", {identity_of((m_dir / "none.so").string())}, package()};
  EXPECT_FALSE(decode_direct_record(bytes(encode_direct_record(no_file)))) << "a record must name the compiler's files";
  DirectRecord no_package = record_of({write("b.so", "b")});
  no_package.package = {};
  EXPECT_FALSE(decode_direct_record(bytes(encode_direct_record(no_package)))) << "a record must carry its package";
}

TEST_F(DirectRecordTest, EveryChangeToAFileIsSeen) {
  const std::string path = write("libnvrtc.so.13", "nvrtc 13.0");
  const DirectRecord record = record_of({path});
  ASSERT_TRUE(files_unchanged(record));

  // The same size and modification time, written again in place: the change time still moves.
  const fs::file_time_type mtime = fs::last_write_time(path);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write("libnvrtc.so.13", "nvrtc 13.1");
  fs::last_write_time(path, mtime);
  EXPECT_FALSE(files_unchanged(record)) << "rewritten with its time set back";

  // Another file renamed over it.
  DirectRecord now = record_of({path});
  write("other", "nvrtc 13.0");
  fs::rename(m_dir / "other", path);
  EXPECT_FALSE(files_unchanged(now)) << "replaced";
  fs::remove(path);
  EXPECT_FALSE(files_unchanged(now)) << "removed";
}

TEST_F(DirectRecordTest, AnAbsentPathMustStayAbsent) {
  DirectRecord record = record_of({write("a.so", "a"), (m_dir / "earlier" / "libnvrtc.so.13").string()});
  ASSERT_FALSE(record.files[1].present);
  EXPECT_TRUE(files_unchanged(record));
  fs::create_directories(m_dir / "earlier");
  write("earlier/libnvrtc.so.13", "another NVRTC");
  EXPECT_FALSE(files_unchanged(record));
}

TEST_F(DirectRecordTest, AFileJustChangedIsNotTrustedByItsTimes) {
  const FileIdentity fresh = identity_of(write("a.so", "a"));
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_FALSE(settled(fresh, now_ns));
  EXPECT_TRUE(settled(fresh, now_ns + k_settle_ns + 1));
  EXPECT_TRUE(settled(identity_of((m_dir / "absent").string()), now_ns));
}

TEST_F(DirectRecordTest, TheQueryHoldsEveryInput) {
  const DirectQuery base{0x1234, 4096, "ops::scale<double>", "sm_90", {"/opt/nvrtc/lib"}};
  test::unset_variable("KILN_NVRTC");
  std::set<std::string> queries = {direct_query(base)};
  EXPECT_EQ(direct_query(base), *queries.begin()) << "the same inputs, the same query";
  EXPECT_EQ(direct_key(direct_query(base)).size(), 32u);
  EXPECT_NE(direct_key(direct_query(base)), direct_key(direct_query(base) + " "));
  DirectQuery q = base;
  q.package_checksum = 0x1235;
  queries.insert(direct_query(q));
  q = base;
  q.package_size = 4097;
  queries.insert(direct_query(q));
  q = base;
  q.name = "ops::scale<float>";
  queries.insert(direct_query(q));
  q = base;
  q.target = "sm_100";
  queries.insert(direct_query(q));
  q = base;
  q.search_directories.push_back("/opt/other");
  queries.insert(direct_query(q));
#if defined(_WIN32)
  constexpr std::size_t distinct = 7;   // Windows has no empty variable: setting one to "" removes it
#else
  constexpr std::size_t distinct = 8;
  test::set_variable("KILN_NVRTC", "");   // set and empty is not unset
  queries.insert(direct_query(base));
#endif
  test::set_variable("KILN_NVRTC", "/opt/nvrtc/lib/libnvrtc.so.13");
  queries.insert(direct_query(base));
  test::unset_variable("KILN_NVRTC");
  EXPECT_EQ(queries.size(), distinct);
}

}  // namespace
}  // namespace kiln::store
