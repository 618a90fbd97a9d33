// kiln build through the compile cache (tests/fixtures/projects/basic: 2 units x 3 targets): a second
// build compiles nothing and writes the same bytes; an option, a target or a header misses exactly
// the images it decides; concurrent builds share one cache; `kiln cache stats|clear|trim`; KILN_CACHE=0.
#include "kiln_runner.hpp"
#include "test_process.hpp"
#include "store/local_store.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <thread>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class BuildCache : public ::testing::Test {
protected:
  BuildCache() : m_project(m_dir.copy_project("basic")), m_cache(m_dir.path() / "cache") {}

  RunResult build(const std::vector<std::string>& extra = {}, const std::vector<std::string>& env = {}) {
    std::vector<std::string> args{"build", "-o", "basic.kiln", "-v"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> all{"KILN_CACHE_DIR=" + m_cache.string()};
    all.insert(all.end(), env.begin(), env.end());
    return run_kiln(args, m_project, all);
  }
  RunResult cache(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    std::vector<std::string> all{"cache"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<std::string> vars{"KILN_CACHE_DIR=" + m_cache.string()};
    vars.insert(vars.end(), env.begin(), env.end());
    return run_kiln(all, m_project, vars);
  }
  static bool says(const RunResult& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

  ScratchDir m_dir;
  fs::path m_project;
  fs::path m_cache;
};

TEST_F(BuildCache, ASecondBuildHitsEveryImageAndWritesTheSameBytes) {
  const RunResult cold = build();
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_TRUE(says(cold, "compile: 0 cached, 6 compiled")) << cold.err;
  const std::vector<std::byte> first = read_bytes(m_project / "basic.kiln");
  const std::string depfile = read_text(m_project / "basic.kiln.d");
  fs::remove(m_project / "basic.kiln");
  const RunResult warm = build();
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_TRUE(says(warm, "compile: 6 cached, 0 compiled")) << warm.err;
  // kernels/more.cu, device-only with nothing a parse would name, is left to NVRTC's image unscanned.
  EXPECT_TRUE(says(warm, "scan: 1 cached, 0 scanned, 1 source left to NVRTC's image")) << warm.err;
  // -v marks each step the cache answered (docs/cli.md, "Cache"); none of the cold build's was.
  EXPECT_TRUE(says(warm, "sm_90a kernels/ops.cu (cached)\n")) << warm.err;
  EXPECT_FALSE(says(cold, "(cached)")) << cold.err;
  EXPECT_EQ(read_bytes(m_project / "basic.kiln"), first);
  EXPECT_EQ(read_text(m_project / "basic.kiln.d"), depfile) << "headers of cached images are inputs too";
  EXPECT_FALSE(fs::exists(m_project / "basic.kiln.scan-cache")) << "no cache beside the output";
}

// A link group's job names no source file of its own; its members' sources decide whether it is kept.
TEST_F(BuildCache, LinkGroupsAreKeptAndHitToo) {
  const fs::path linking = m_dir.copy_project("linking", "linking");
  const auto build_linking = [&] {
    return run_kiln({"build", "-o", "linking.kiln", "-v"}, linking, {"KILN_CACHE_DIR=" + m_cache.string()});
  };
  const RunResult cold = build_linking();
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  const std::vector<std::byte> first = read_bytes(linking / "linking.kiln");
  const RunResult warm = build_linking();
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_TRUE(says(warm, " cached, 0 compiled")) << warm.err;
  EXPECT_EQ(read_bytes(linking / "linking.kiln"), first);
}

TEST_F(BuildCache, ACopyOfTheTreeElsewhereHitsTheSameEntries) {
  ASSERT_EQ(build().exit_code, 0);
  const fs::path other = m_dir.copy_project("basic", "deeper/elsewhere");
  const RunResult r =
      run_kiln({"build", "-o", "basic.kiln", "-v"}, other, {"KILN_CACHE_DIR=" + m_cache.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(says(r, "compile: 6 cached, 0 compiled")) << "no absolute path in the key\n" << r.err;
  EXPECT_EQ(read_bytes(other / "basic.kiln"), read_bytes(m_project / "basic.kiln"));
}

TEST_F(BuildCache, ATargetAnOptionOrAHeaderMissesWhatItDecides) {
  ASSERT_EQ(build().exit_code, 0);
  const RunResult fewer = build({"--targets", "sm_80,sm_86"});
  ASSERT_EQ(fewer.exit_code, 0) << fewer.err;
  EXPECT_TRUE(says(fewer, "compile: 2 cached, 2 compiled")) << "sm_86 is new\n" << fewer.err;

  const std::string manifest = read_text(m_project / "kiln.toml");
  write_text(m_project / "kiln.toml", "options = [\"-DKILN_TEST_OPTION=1\"]\n" + manifest);
  const RunResult option = build();
  ASSERT_EQ(option.exit_code, 0) << option.err;
  EXPECT_TRUE(says(option, "compile: 0 cached, 6 compiled")) << option.err;
  write_text(m_project / "kiln.toml", manifest);
  const RunResult back = build();
  EXPECT_TRUE(says(back, "compile: 6 cached, 0 compiled")) << "the original entries are still there\n" << back.err;

  // include/ops_common.cuh is read by kernels/ops.cu only: its 3 images miss, more.cu's hit.
  const std::string header = read_text(m_project / "include/ops_common.cuh");
  write_text(m_project / "include/ops_common.cuh", header + "\n// edited\n");
  const RunResult edited = build();
  ASSERT_EQ(edited.exit_code, 0) << edited.err;
  EXPECT_TRUE(says(edited, "compile: 3 cached, 3 compiled")) << edited.err;
}

TEST_F(BuildCache, ConcurrentBuildsShareOneCache) {
  const fs::path a = m_dir.copy_project("basic", "a"), b = m_dir.copy_project("basic", "b");
  const std::vector<std::string> env{"KILN_CACHE_DIR=" + m_cache.string()};
  RunResult ra, rb;
  std::thread ta([&] { ra = run_kiln({"build", "-o", "out.kiln"}, a, env); });
  std::thread tb([&] { rb = run_kiln({"build", "-o", "out.kiln"}, b, env); });
  ta.join();
  tb.join();
  ASSERT_EQ(ra.exit_code, 0) << ra.err;
  ASSERT_EQ(rb.exit_code, 0) << rb.err;
  EXPECT_EQ(read_bytes(a / "out.kiln"), read_bytes(b / "out.kiln"));
  const RunResult again = build();
  EXPECT_TRUE(says(again, "compile: 6 cached, 0 compiled")) << again.err;
  EXPECT_EQ(read_bytes(m_project / "basic.kiln"), read_bytes(a / "out.kiln"));
}

TEST_F(BuildCache, StatsClearAndTrim) {
  ASSERT_EQ(build().exit_code, 0);
  ASSERT_EQ(build().exit_code, 0);
  // What a program compiling kernels at run time records in the same store (rtc/compiled_cache.cpp).
  store::LocalStore(m_cache, 0)
      .add_counters({{"runtime.hits", 3}, {"runtime.compiles", 2}, {"runtime.compiled_bytes", 2048}});
  const RunResult stats = cache({"stats", "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const nlohmann::json report = nlohmann::json::parse(stats.out);
  EXPECT_EQ(report["directory"], m_cache.string());
  EXPECT_EQ(report["compile"]["hits"], 6);
  EXPECT_EQ(report["compile"]["misses"], 6);
  EXPECT_EQ(report["scan"]["hits"], 1);   // kernels/ops.cu's; kernels/more.cu is not scanned
  EXPECT_EQ(report["scan"]["misses"], 1);
  EXPECT_EQ(report["runtime"]["hits"], 3);
  EXPECT_EQ(report["runtime"]["compiles"], 2);
  EXPECT_EQ(report["runtime"]["compiled_bytes"], 2048);
  EXPECT_EQ(report["entries"], 13) << "6 keys with their header sets, their 6 images, and 1 scan";
  EXPECT_GT(report["size"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(report["max_size"], 5'000'000'000u);
  const RunResult text = cache({"stats"});
  EXPECT_NE(text.out.find("compile hits     6\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("runtime hits     3\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("runtime compiles 2 ("), std::string::npos) << text.out;

  const RunResult trimmed = cache({"trim", "--max-size", "1k"});
  ASSERT_EQ(trimmed.exit_code, 0) << trimmed.err;
  EXPECT_LT(nlohmann::json::parse(cache({"stats", "--json"}).out)["size"].get<std::uint64_t>(), 1000u);
  EXPECT_EQ(cache({"trim", "--max-size", "lots"}).exit_code, 2);

  ASSERT_EQ(cache({"clear"}).exit_code, 0);
  const nlohmann::json cleared = nlohmann::json::parse(cache({"stats", "--json"}).out);
  EXPECT_EQ(cleared["entries"], 0);
  EXPECT_EQ(cleared["compile"]["hits"], 0);
  EXPECT_TRUE(says(build(), "compile: 0 cached, 6 compiled"));
}

TEST_F(BuildCache, KilnCacheZeroKeepsNothing) {
  ASSERT_EQ(build({}, {"KILN_CACHE=0"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(m_cache)) << "nothing written";
  const RunResult again = build({}, {"KILN_CACHE=0"});
  EXPECT_TRUE(says(again, "compile: 0 cached, 6 compiled")) << again.err;
  EXPECT_TRUE(says(again, "scan: 0 cached, 1 scanned")) << again.err;
}

TEST_F(BuildCache, CacheDirAndItsScanCacheAliasOverrideTheVariable) {
  ASSERT_EQ(build({"--cache-dir", (m_dir.path() / "flag").string()}).exit_code, 0);
  EXPECT_FALSE(fs::exists(m_cache));
  const RunResult alias = build({"--scan-cache", (m_dir.path() / "flag").string()});
  EXPECT_TRUE(says(alias, "compile: 6 cached, 0 compiled")) << alias.err;
}

TEST_F(BuildCache, BadVariablesAreNamed) {
  const RunResult size = build({}, {"KILN_CACHE_MAX_SIZE=5X"});
  EXPECT_EQ(size.exit_code, 2);
  EXPECT_TRUE(says(size, "KILN_CACHE_MAX_SIZE: '5X' is not a size")) << size.err;
  const RunResult on = build({}, {"KILN_CACHE=maybe"});
  EXPECT_EQ(on.exit_code, 2);
  EXPECT_TRUE(says(on, "KILN_CACHE=maybe: ")) << on.err;
}

// A cache directory that cannot be written (here: a file in its way, which stops root too) is said
// once, and the build goes on without it.
TEST_F(BuildCache, AnUnwritableCacheDirectoryIsAWarningAndTheBuildGoesOn) {
  write_text(m_dir.path() / "file", "not a directory\n");
  const std::string blocked = (m_dir.path() / "file" / "cache").string();
  const RunResult r = build({"--cache-dir", blocked});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(says(r, "kiln: warning: cannot write the cache directory " + blocked + ": Not a directory; "
                      "building without the cache")) << r.err;
  EXPECT_TRUE(says(r, "compile: 0 cached, 6 compiled")) << r.err;
  EXPECT_TRUE(fs::exists(m_project / "basic.kiln"));
  // The cache commands refuse it, naming it (a missing directory is an empty cache).
  for (const std::string command : {"stats", "clear", "trim"}) {
    const RunResult c = cache({command, "--cache-dir", blocked});
    EXPECT_EQ(c.exit_code, 4) << command << ": " << c.err;
    EXPECT_TRUE(says(c, "kiln: error: cannot use the cache directory " + blocked + ": Not a directory")) << c.err;
  }
  const RunResult file = cache({"stats", "--cache-dir", (m_dir.path() / "file").string()});
  EXPECT_EQ(file.exit_code, 4) << file.err;
  EXPECT_TRUE(says(file, "is not a directory")) << file.err;
}

// `kiln cache clear` on a cache laid out by hand (entries need only their names to be cleared).
class CacheClear : public ::testing::Test {
protected:
  CacheClear() : m_cache(m_dir.path() / "cache") {}
  fs::path entry(const std::string& shard) const {
    const fs::path path = m_cache / shard / (shard + std::string(30, '7'));
    fs::create_directories(path.parent_path());
    write_text(path, "an entry\n");
    return path;
  }
  RunResult clear() const { return run_kiln({"cache", "clear", "--cache-dir", m_cache.string()}, m_dir.path()); }
  ScratchDir m_dir;
  fs::path m_cache;
};

TEST_F(CacheClear, ALinkedShardIsRemovedAsALinkAndWhatItPointsToIsLeft) {
  const fs::path own = entry("aa");
  const fs::path outside = m_dir.path() / "outside";
  write_text(outside / ("bb" + std::string(30, '7')), "not the cache's\n");
  fs::create_directory_symlink(outside, m_cache / "bb");
  const RunResult r = clear();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed 1 entries"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(own));
  EXPECT_TRUE(fs::exists(outside / ("bb" + std::string(30, '7')))) << "clear left the cache directory";
  EXPECT_FALSE(fs::exists(fs::symlink_status(m_cache / "bb")));
}

TEST_F(CacheClear, WhatCannotBeRemovedIsNamedAndTheExitIsNotZero) {
  const fs::path stuck = entry("cc");
  if (const std::string why = freeze_directory(m_cache / "cc"); !why.empty()) GTEST_SKIP() << why;
  const RunResult r = clear();
  free_directory(m_cache / "cc");
  EXPECT_EQ(r.exit_code, k_environment) << r.out << r.err;
  EXPECT_NE(r.out.find("removed 0 entries"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("kiln: error: " + stuck.string() + ": cannot remove it: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is not wholly cleared (1 problem above)"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(stuck));
}

}  // namespace
}  // namespace kiln::test
