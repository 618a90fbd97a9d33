// Keys of run-time compiles: every input that decides the image changes the key; paths, times and
// the place a project lives do not.
#include "rtc/compile_keys.hpp"
#include "store/direct_record.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

namespace kiln::rtc {
namespace {

namespace fs = std::filesystem;

const CompilerIdentity k_compiler{"13.0", "13.0"};

CarriedInputs carried() {
  return CarriedInputs{"kernels/ops.cu", 0x1111, {{"include/ops.cuh", 0x2222}}, {"include"}, {"-DN=4"}, {}};
}

TEST(CarriedKey, EveryInputCounts) {
  const std::string base = carried_key(carried(), "scale<float>", "sm_90", k_compiler);
  EXPECT_EQ(base.size(), 32u);
  EXPECT_EQ(base, carried_key(carried(), "scale<float>", "sm_90", k_compiler));
  std::vector<std::string> keys = {base};
  CarriedInputs c = carried();
  c.headers[0].content_hash = 0x2223;   // a header changed: no stale kernel
  keys.push_back(carried_key(c, "scale<float>", "sm_90", k_compiler));
  c = carried();
  c.source_hash = 0x1112;
  keys.push_back(carried_key(c, "scale<float>", "sm_90", k_compiler));
  c = carried();
  c.options = {"-DN=5"};
  keys.push_back(carried_key(c, "scale<float>", "sm_90", k_compiler));
  c = carried();
  c.link_options = {"-lineinfo"};
  keys.push_back(carried_key(c, "scale<float>", "sm_90", k_compiler));
  keys.push_back(carried_key(carried(), "scale<double>", "sm_90", k_compiler));
  keys.push_back(carried_key(carried(), "scale<float>", "sm_89", k_compiler));
  keys.push_back(carried_key(carried(), "scale<float>", "sm_90", CompilerIdentity{"13.1", "13.0"}));
  keys.push_back(carried_key(carried(), "scale<float>", "sm_90", CompilerIdentity{"13.0", "13.1"}));
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end()) << "two inputs gave one key";
}

class ProgramKeyTest : public ::testing::Test {
protected:
  ProgramKeyTest() {
    m_root = fs::temp_directory_path() /
             ("kiln-keys-test-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    write(m_root / "project" / "include" / "lib.cuh", "#define N 4\n");
    write(m_root / "project" / "src" / "near.cuh", "#define M 2\n");
  }
  ~ProgramKeyTest() override {
    std::error_code ignored;
    fs::remove_all(m_root, ignored);
  }
  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  ProgramRequest request(const fs::path& project) const {
    ProgramRequest r;
    r.name = (project / "src" / "prog.cu").string();
    r.source = "#include \"lib.cuh\"\n#include \"near.cuh\"\n#include \"mem.h\"\n__global__ void k() {}\n";
    r.headers = {{"mem.h", "#define X 1\n"}};
    r.include_dirs = {(project / "include").string()};
    r.kernels = {"k"};
    return r;
  }
  std::vector<std::string> opened(const fs::path& project) const {
    return {(project / "include" / "lib.cuh").string(), (project / "src" / "near.cuh").string(), "mem.h"};
  }
  fs::path m_root;
};

TEST_F(ProgramKeyTest, HeadersAreRecordedByWhereTheyWereFoundAndTheirContent) {
  const ProgramRequest r = request(m_root / "project");
  const std::vector<HeaderRecord> records = *locate_headers(r, opened(m_root / "project"));
  ASSERT_EQ(records.size(), 2u) << "the in-memory header is in the request key, not recorded";
  EXPECT_EQ(records[0].origin, HeaderOrigin::include_dir);
  EXPECT_EQ(records[0].path, "lib.cuh");
  EXPECT_EQ(records[1].origin, HeaderOrigin::beside_program);
  EXPECT_EQ(records[1].path, "near.cuh");
  const std::optional<std::vector<HeaderRecord>> back = decode_header_records(encode_header_records(records));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[1].content_hash, records[1].content_hash);
  EXPECT_TRUE(headers_unchanged(r, *back));
}

TEST_F(ProgramKeyTest, ATouchedButUnchangedHeaderIsHashedAgainAndStillMatches) {
  const ProgramRequest r = request(m_root / "project");
  const std::vector<HeaderRecord> before = *locate_headers(r, opened(m_root / "project"));
  fs::last_write_time(m_root / "project" / "include" / "lib.cuh",
                      fs::last_write_time(m_root / "project" / "include" / "lib.cuh") + std::chrono::seconds(5));
  EXPECT_TRUE(headers_unchanged(r, before)) << "another time, the same content";
  // Same size and time but other content (written within the clock's resolution): the stamp wins,
  // as in ccache's direct mode; a real edit moves the time.
}

// A record trusts a header's times only once they have settled (store::k_settle_ns), and then only for
// the same file: another file of the same size and modification time renamed into its place, or
// its bytes rewritten and its modification time set back (`cp -p`, `touch -r`), is hashed again.
TEST_F(ProgramKeyTest, AHeaderReplacedWithTheSameSizeAndTimeIsNoticed) {
  const ProgramRequest r = request(m_root / "project");
  const fs::path header = m_root / "project" / "include" / "lib.cuh";
  const std::vector<HeaderRecord> fresh = *locate_headers(r, opened(m_root / "project"));
  for (const HeaderRecord& record : fresh) EXPECT_FALSE(record.stat_trusted) << record.path << " was written just now";
  std::this_thread::sleep_for(std::chrono::nanoseconds(store::k_settle_ns) + std::chrono::milliseconds(100));
  const std::vector<HeaderRecord> settled = *locate_headers(r, opened(m_root / "project"));
  for (const HeaderRecord& record : settled) EXPECT_TRUE(record.stat_trusted) << record.path;
  const auto time = fs::last_write_time(header);

  write(m_root / "project" / "other.cuh", "#define N 7\n");   // the same size as "#define N 4\n"
  fs::last_write_time(m_root / "project" / "other.cuh", time);
  fs::rename(m_root / "project" / "other.cuh", header);
  EXPECT_FALSE(headers_unchanged(r, settled)) << "another file, of the same size and time, in its place";

  write(header, "#define N 4\n");
  const std::vector<HeaderRecord> again = *locate_headers(r, opened(m_root / "project"));
  write(header, "#define N 9\n");
  fs::last_write_time(header, time);
  EXPECT_FALSE(headers_unchanged(r, again)) << "rewritten in place, its modification time set back";
}

// A header found in an include directory is read no longer once a file of its name appears where
// NVRTC looks first: beside the program or in an earlier include directory. Such a file is a change;
// one that was there already when the program was compiled (and not read) is not.
TEST_F(ProgramKeyTest, AHeaderThatAppearsWhereNvrtcLooksFirstIsAChange) {
  ProgramRequest r = request(m_root / "project");
  write(m_root / "project" / "first" / "unrelated.cuh", "\n");
  write(m_root / "project" / "first" / "in-first.cuh", "\n");   // there already: no shadow of anything
  r.include_dirs.insert(r.include_dirs.begin(), (m_root / "project" / "first").string());
  std::vector<std::string> names = opened(m_root / "project");
  const std::vector<HeaderRecord> records = *locate_headers(r, names);
  EXPECT_TRUE(headers_unchanged(r, records));
  write(m_root / "project" / "first" / "lib.cuh", "#define N 4\n");   // the same bytes, found first now
  EXPECT_FALSE(headers_unchanged(r, records)) << "a header in an earlier include directory";
  fs::remove(m_root / "project" / "first" / "lib.cuh");
  EXPECT_TRUE(headers_unchanged(r, records));
  write(program_directory(r) / "lib.cuh", "#define N 4\n");
  EXPECT_FALSE(headers_unchanged(r, records)) << "a header beside the program";
  fs::remove(program_directory(r) / "lib.cuh");
  // A file already beside the program when it was compiled (so an angled include passed it by): no change.
  write(program_directory(r) / "lib.cuh", "// not what <lib.cuh> found\n");
  const std::vector<HeaderRecord> beside_already = *locate_headers(r, names);
  EXPECT_TRUE(headers_unchanged(r, beside_already));
}

// A header that cannot be read again when the compile is recorded is no record at all: one without
// it would not see it come back changed.
TEST_F(ProgramKeyTest, AHeaderGoneBeforeItIsRecordedLeavesNoRecord) {
  const ProgramRequest r = request(m_root / "project");
  std::vector<std::string> names = opened(m_root / "project");
  names.push_back((m_root / "project" / "include" / "gone.cuh").string());
  EXPECT_FALSE(locate_headers(r, names));
}

TEST_F(ProgramKeyTest, AHeaderChangeIsNoticedAndChangesTheKey) {
  const ProgramRequest r = request(m_root / "project");
  const std::vector<HeaderRecord> before = *locate_headers(r, opened(m_root / "project"));
  write(m_root / "project" / "include" / "lib.cuh", "#define N 15\n");
  EXPECT_FALSE(headers_unchanged(r, before));
  const std::vector<HeaderRecord> after = *locate_headers(r, opened(m_root / "project"));
  const std::string key = program_request_key(r, "sm_90", k_compiler);
  EXPECT_NE(program_entry_key(key, before), program_entry_key(key, after));
}

// A CUB kernel reads about 600 headers in dozens of directories: the check is split over threads
// (header_check.cpp), and a change anywhere in the list, first or last, is still found.
TEST_F(ProgramKeyTest, AChangeAmongHundredsOfHeadersIsFoundWhereverItIs) {
  ProgramRequest r = request(m_root / "project");
  std::vector<std::string> names = opened(m_root / "project");
  for (int i = 0; i < 700; ++i) {
    const fs::path header = m_root / "project" / "include" / ("dir" + std::to_string(i % 37)) / ("h" + std::to_string(i) + ".cuh");
    write(header, "#define H" + std::to_string(i) + " 1\n");
    names.push_back(header.string());
  }
  const std::vector<HeaderRecord> records = *locate_headers(r, names);
  ASSERT_EQ(records.size(), 702u);
  const auto open_descriptors = [] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++n;
    return n;
  };
  const std::size_t descriptors = open_descriptors();
  EXPECT_TRUE(headers_unchanged(r, records));
  EXPECT_EQ(open_descriptors(), descriptors) << "every directory the check opened is closed";
  for (const int changed : {0, 351, 699}) {
    const fs::path header = m_root / "project" / "include" / ("dir" + std::to_string(changed % 37)) /
                            ("h" + std::to_string(changed) + ".cuh");
    const std::string text = "#define H" + std::to_string(changed) + " 1\n";
    write(header, text + "// edited\n");
    EXPECT_FALSE(headers_unchanged(r, records)) << "header " << changed << " changed";
    write(header, text);   // back to the recorded bytes (a new time: hashed again, and equal)
    EXPECT_TRUE(headers_unchanged(r, records)) << "header " << changed << " restored";
  }
  fs::remove_all(m_root / "project" / "include" / "dir36");
  EXPECT_FALSE(headers_unchanged(r, records)) << "a directory of headers removed";
}

TEST_F(ProgramKeyTest, ARecordOfAnotherRequestIsNotTakenForThisOne) {
  const ProgramRequest r = request(m_root / "project");
  const std::vector<HeaderRecord> records = *locate_headers(r, opened(m_root / "project"));
  ProgramRequest fewer_dirs = r;
  fewer_dirs.include_dirs.clear();   // the record names include directory 0, which this one lacks
  EXPECT_FALSE(headers_unchanged(fewer_dirs, records));
  fs::remove(m_root / "project" / "src" / "near.cuh");
  EXPECT_FALSE(headers_unchanged(r, records)) << "a header beside the program removed";
}

TEST_F(ProgramKeyTest, ACopyOfTheProjectElsewhereHasTheSameKeys) {
  fs::create_directories(m_root / "elsewhere");
  fs::copy(m_root / "project", m_root / "elsewhere" / "copy", fs::copy_options::recursive);
  const ProgramRequest here = request(m_root / "project");
  const ProgramRequest there = request(m_root / "elsewhere" / "copy");
  const std::string key_here = program_request_key(here, "sm_90", k_compiler);
  EXPECT_EQ(key_here, program_request_key(there, "sm_90", k_compiler));
  const std::vector<HeaderRecord> records = *locate_headers(here, opened(m_root / "project"));
  EXPECT_TRUE(headers_unchanged(there, records)) << "the records hold no path of the first copy";
  EXPECT_EQ(program_entry_key(key_here, records),
            program_entry_key(key_here, *locate_headers(there, opened(m_root / "elsewhere" / "copy"))));
}

TEST_F(ProgramKeyTest, EveryRequestFieldCounts) {
  const ProgramRequest base = request(m_root / "project");
  std::vector<std::string> keys = {program_request_key(base, "sm_90", k_compiler)};
  ProgramRequest r = base;
  r.source += " ";
  keys.push_back(program_request_key(r, "sm_90", k_compiler));
  r = base;
  r.headers[0].second = "#define X 2\n";
  keys.push_back(program_request_key(r, "sm_90", k_compiler));
  r = base;
  r.options = {"-DY=1"};
  keys.push_back(program_request_key(r, "sm_90", k_compiler));
  r = base;
  r.kernels = {"k2"};
  keys.push_back(program_request_key(r, "sm_90", k_compiler));
  r = base;
  r.globals = {"g"};
  keys.push_back(program_request_key(r, "sm_90", k_compiler));
  r = base;
  r.name = (m_root / "project" / "src" / "other.cu").string();
  keys.push_back(program_request_key(r, "sm_90", k_compiler));
  keys.push_back(program_request_key(base, "sm_100", k_compiler));
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
}

TEST(HeaderRecords, DamagedRecordsAreRefused) {
  EXPECT_FALSE(decode_header_records("kiln-headers 1\n"));
  EXPECT_FALSE(decode_header_records("kiln-headers 2\n0 0 0000000000000001 1 2 1.h\n")) << "an older record";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 zz 1 2 3 4 5 1 0000000000000000 1.h\n"));
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n7 0 0000000000000001 1 2 3 4 5 1 0000000000000000 1.h\n"));
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 0000000000000001 1 2 3 4 5 1 0000000000000000\n"));
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 0000000000000001 x 2 3 4 5 1 0000000000000000 1.h\n"));
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 0000000000000001 1 2 3 4 5 1 0000000000000000 \n")) << "an empty path";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 000000000000001 1 2 3 4 5 1 0000000000000000 1.h\n")) << "15 hex digits";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 00000000000000012 1 2 3 4 5 1 0000000000000000 1.h\n")) << "17 hex digits";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 -1 0000000000000001 1 2 3 4 5 1 0000000000000000 1.h\n")) << "a negative index";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 0000000000000001 1x 2 3 4 5 1 0000000000000000 1.h\n")) << "trailing junk";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0  0 0000000000000001 1 2 3 4 5 1 0000000000000000 1.h\n")) << "an empty field";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 0000000000000001 1 2 3 4 5 2 0000000000000000 1.h\n")) << "trusted is 0 or 1";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 0000000000000001 1 2 3 4 5 1 1.h\n")) << "a field short";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n0 0 0000000000000001 1 2 3 4 5 1 00000000000000000 1.h\n"))
      << "17 hex digits of shadows";
  EXPECT_FALSE(decode_header_records("kiln-headers 3\n\n")) << "an empty line";
  EXPECT_FALSE(decode_header_records("kiln-headers 3 \n")) << "not the magic line";
  const auto none = decode_header_records("kiln-headers 3\n");
  ASSERT_TRUE(none) << "a program that read no header from disk";
  EXPECT_TRUE(none->empty());
  const auto negative_time = decode_header_records("kiln-headers 3\n2 0 00000000000000ff 1 -5 -6 7 8 0 8000000000000001 /x.h");
  ASSERT_TRUE(negative_time) << "no final newline, times before 1970";
  EXPECT_EQ((*negative_time)[0].mtime_ns, -5);
  EXPECT_EQ((*negative_time)[0].ctime_ns, -6);
  EXPECT_EQ((*negative_time)[0].content_hash, 0xffu);
  EXPECT_FALSE((*negative_time)[0].stat_trusted);
  EXPECT_EQ((*negative_time)[0].shadows, k_shadow_beside | 1u);
  const auto spaced = decode_header_records("kiln-headers 3\n1 0 0000000000000001 10 20 30 40 50 1 0000000000000000 a dir/b c.h\n");
  ASSERT_TRUE(spaced);
  EXPECT_EQ((*spaced)[0].path, "a dir/b c.h");
  EXPECT_EQ((*spaced)[0].size, 10u);
  EXPECT_EQ((*spaced)[0].mtime_ns, 20);
  EXPECT_EQ((*spaced)[0].device, 40u);
  EXPECT_EQ((*spaced)[0].file, 50u);
  EXPECT_TRUE((*spaced)[0].stat_trusted);
  const HeaderRecord written{HeaderOrigin::include_dir, 3, "x y.h", 0x1234, 5, 6, 7, 8, 9, true};
  const auto back = decode_header_records(encode_header_records({written}));
  ASSERT_TRUE(back && back->size() == 1);
  EXPECT_EQ((*back)[0].path, "x y.h");
  EXPECT_EQ((*back)[0].index, 3u);
  EXPECT_EQ((*back)[0].ctime_ns, 7);
  EXPECT_EQ((*back)[0].file, 9u);
  EXPECT_TRUE((*back)[0].stat_trusted);
}

}  // namespace
}  // namespace kiln::rtc
