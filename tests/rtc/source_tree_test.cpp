// The private tree a run-time compile lays the carried sources out in: every file under its build
// path, nothing left when it goes or when writing fails, a place that fails passes the tree to the
// next, memory only where it is a tmpfs with room, and trees killed processes left are removed.
#include "rtc/source_tree.hpp"

#include "platform/files.hpp"

#include <gtest/gtest.h>

#include <sys/vfs.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

namespace kiln::rtc {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class SourceTreeTest : public ::testing::Test {
protected:
  SourceTreeTest() {
    m_dir = fs::temp_directory_path() /
            ("kiln-source-tree-test-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
  }
  ~SourceTreeTest() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  std::vector<std::string> trees_in(const fs::path& place) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(place)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("kiln-rtc-", 0) == 0) names.push_back(name);
    }
    return names;
  }
  fs::path m_dir;
};

const std::vector<TreeFile> k_files = {
    {"kernels/op.cu", "#include \"op.cuh\"\n"},
    {"kernels/op.cuh", "#pragma once\n"},
    {"_cuda/include/cccl/cub/cub.cuh", "// cub\n"},
};

TEST_F(SourceTreeTest, WritesEveryFileUnderItsBuildPathAndRemovesTheTreeWhenDone) {
  fs::path root;
  {
    Result<SourceTree> tree = SourceTree::write(k_files, {m_dir});
    ASSERT_TRUE(tree) << tree.error().message;
    root = tree->root();
    EXPECT_EQ(root.parent_path(), m_dir);
    for (const TreeFile& file : k_files) EXPECT_EQ(read_text(root / file.path), file.text) << file.path;
    EXPECT_EQ(tree->path_of("kernels"), (root / "kernels").string());
    EXPECT_EQ(tree->relative_paths_in(root.string() + "/kernels/op.cu(3): error"), "kernels/op.cu(3): error");
  }
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(trees_in(m_dir).empty());
}

TEST_F(SourceTreeTest, APathThatLeavesTheTreeIsRefusedAndNothingIsWritten) {
  for (const std::string bad : {"../escape.h", "/etc/passwd", "a/./b.h", "a\\b.h"}) {
    std::vector<TreeFile> files = k_files;
    files.push_back({bad, "x"});
    Result<SourceTree> tree = SourceTree::write(files, {m_dir});
    ASSERT_FALSE(tree) << bad;
    EXPECT_NE(tree.error().message.find("'" + bad + "'"), std::string::npos) << tree.error().message;
  }
  EXPECT_TRUE(trees_in(m_dir).empty());
}

TEST_F(SourceTreeTest, APlaceThatFailsPassesTheTreeToTheNext) {
  const fs::path missing = m_dir / "missing";
  fs::create_directories(m_dir / "good");
  Result<SourceTree> tree = SourceTree::write(k_files, {missing, m_dir / "good"});
  ASSERT_TRUE(tree) << tree.error().message;
  EXPECT_EQ(tree->root().parent_path(), m_dir / "good");
}

TEST_F(SourceTreeTest, WhenEveryPlaceFailsTheErrorNamesEachAndNothingHalfWrittenStays) {
  // "kernels/op.cu" is a file, so "kernels/op.cu/inner.h" cannot be made: the write fails midway.
  std::vector<TreeFile> files = k_files;
  files.push_back({"kernels/op.cu/inner.h", "x"});
  const fs::path missing = m_dir / "missing";
  Result<SourceTree> tree = SourceTree::write(files, {m_dir, missing});
  ASSERT_FALSE(tree);
  const std::string& message = tree.error().message;
  EXPECT_NE(message.find(m_dir.string() + ": cannot create"), std::string::npos) << message;
  EXPECT_NE(message.find("kernels/op.cu"), std::string::npos) << message;
  EXPECT_NE(message.find(missing.string() + ": cannot create a directory"), std::string::npos) << message;
  EXPECT_TRUE(trees_in(m_dir).empty()) << "the half-written tree is removed";
}

TEST_F(SourceTreeTest, ATreeAKilledProcessLeftIsRemovedByTheNextOneAndLiveOrNewTreesStay) {
  const auto two_minutes_ago = fs::file_time_type::clock::now() - std::chrono::minutes(2);
  fs::create_directories(m_dir / "kiln-rtc-abandoned/include");
  std::ofstream(m_dir / "kiln-rtc-abandoned/include/a.h") << "x";
  std::ofstream(m_dir / "kiln-rtc-abandoned/.kiln-rtc.lock");   // its owner was killed: nobody holds it
  fs::last_write_time(m_dir / "kiln-rtc-abandoned", two_minutes_ago);
  fs::create_directories(m_dir / "kiln-rtc-justmade");   // no lock yet: its owner may be about to make it
  fs::create_directories(m_dir / "kiln-rtc-oldbutnotempty/x");   // old, no lock file, not empty: not ours
  std::ofstream(m_dir / "kiln-rtc-oldbutnotempty/x/y.h") << "y";
  fs::last_write_time(m_dir / "kiln-rtc-oldbutnotempty", two_minutes_ago);
  fs::create_directories(m_dir / "kiln-rtc-emptyold");   // killed before it made its lock file
  fs::last_write_time(m_dir / "kiln-rtc-emptyold", two_minutes_ago);
  fs::create_directories(m_dir / "not-kiln-old");
  fs::last_write_time(m_dir / "not-kiln-old", two_minutes_ago);

  Result<SourceTree> live = SourceTree::write(k_files, {m_dir});
  ASSERT_TRUE(live) << live.error().message;
  fs::last_write_time(live->root(), two_minutes_ago);   // old, but its lock is held

  Result<SourceTree> next = SourceTree::write(k_files, {m_dir});
  ASSERT_TRUE(next) << next.error().message;
  EXPECT_FALSE(fs::exists(m_dir / "kiln-rtc-abandoned"));
  EXPECT_FALSE(fs::exists(m_dir / "kiln-rtc-emptyold"));
  EXPECT_TRUE(fs::exists(m_dir / "kiln-rtc-justmade"));
  EXPECT_TRUE(fs::exists(m_dir / "kiln-rtc-oldbutnotempty/x/y.h"));
  EXPECT_TRUE(fs::exists(m_dir / "not-kiln-old"));
  EXPECT_EQ(read_text(live->root() / "kernels/op.cuh"), "#pragma once\n");
}

TEST(TreePlaces, TmpdirWhenSetElseMemoryWithRoomElseTmp) {
  EXPECT_EQ(tree_places(1, "/scratch/me", "/dev/shm"), std::vector<fs::path>{"/scratch/me"});
  // Not a tmpfs, or one too small for the tree: not a place.
  EXPECT_FALSE(platform::memory_backed_with_room("/proc", 1));
  EXPECT_FALSE(platform::memory_backed_with_room("/no/such/directory", 1));
  EXPECT_EQ(tree_places(1ull << 60, "", "/proc"), std::vector<fs::path>{"/tmp"});
  EXPECT_EQ(tree_places(1ull << 60, nullptr, nullptr), std::vector<fs::path>{"/tmp"});

  struct statfs kind {};
  if (statfs("/dev/shm", &kind) != 0 || static_cast<long>(kind.f_type) != 0x01021994 ||
      !platform::memory_backed_with_room("/dev/shm", 1)) {
    GTEST_SKIP() << "this machine has no writable tmpfs at /dev/shm with 16 MiB free";
  }
  EXPECT_EQ(tree_places(1 << 20, nullptr, nullptr), (std::vector<fs::path>{"/dev/shm", "/tmp"}));
  EXPECT_EQ(tree_places(1 << 20, nullptr, "/proc"), (std::vector<fs::path>{"/dev/shm", "/tmp"}));
}

}  // namespace
}  // namespace kiln::rtc
