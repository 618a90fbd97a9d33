// kiln build --shard I/N and kiln merge: parts merged in any order write the bytes the unsharded build
// writes (basic: 2 units x 3 targets; carried: carried sources and an nvcc unit; linking: link groups
// and variants); a shard compiles only its jobs and scans only their sources; a request for another
// shard's kernel passes a shard's --strict, and the merge reports (with --strict: fails on) a request
// no shard answers; what a merge refuses: a missing, repeated or foreign
// part, parts of other shard counts, of another manifest or source, a header changed since, a damaged
// part, a file that is no part; bad --shard values.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class BuildShard : public ::testing::Test {
protected:
  RunResult build(const fs::path& project, const std::vector<std::string>& extra, const std::string& cache = "cache") {
    std::vector<std::string> args{"build", "-v"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, project, {"KILN_CACHE_DIR=" + (m_dir.path() / cache).string()});
  }
  RunResult merge(const fs::path& project, const std::vector<std::string>& parts, const std::string& output = "merged.kiln",
                  const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"merge", "-o", output};
    args.insert(args.end(), parts.begin(), parts.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, project, {"KILN_CACHE_DIR=" + (m_dir.path() / "merge-cache").string()});
  }
  // Builds shard i of n of `project` with a cache of its own (a machine of its own), to part<i>of<n>.
  std::string shard(const fs::path& project, int i, int n, const std::vector<std::string>& extra = {},
                    std::string part = "") {
    if (part.empty()) part = "part" + std::to_string(i) + "of" + std::to_string(n);
    std::vector<std::string> args{"--shard", std::to_string(i) + "/" + std::to_string(n), "-o", part};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = build(project, args, "cache-" + part);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return part;
  }
  static bool says(const RunResult& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

  void check_merge_matches_the_whole_build(const std::string& fixture, int n) {
    const fs::path project = m_dir.copy_project(fixture, fixture);
    const RunResult whole = build(project, {"-o", "whole.kiln"}, "cache-whole");
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    std::vector<std::string> parts;
    for (int i = n; i >= 1; --i) parts.push_back(shard(project, i, n));   // any order
    const RunResult merged = merge(project, parts);
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(read_bytes(project / "merged.kiln"), read_bytes(project / "whole.kiln")) << fixture;
    // The same inputs: the depfiles differ only in the output they name.
    const auto inputs = [](const std::string& depfile) { return depfile.substr(depfile.find('\n')); };
    EXPECT_EQ(inputs(read_text(project / "merged.kiln.d")), inputs(read_text(project / "whole.kiln.d")));
  }

  ScratchDir m_dir;
};

TEST_F(BuildShard, PartsMergeIntoTheBytesOfTheWholeBuild) {
  check_merge_matches_the_whole_build("basic", 2);
  check_merge_matches_the_whole_build("carried", 3);
  check_merge_matches_the_whole_build("parts", 2);   // image parts are units that shards share out
}

TEST_F(BuildShard, LinkGroupsAndVariantsMergeToo) { check_merge_matches_the_whole_build("linking", 4); }

TEST_F(BuildShard, AShardCompilesOnlyItsJobsAndWritesNoPackage) {
  const fs::path project = m_dir.copy_project("basic");
  // Shards are balanced by source size: shard 1 gets the larger unit, kernels/more.cu (795 bytes
  // against kernels/ops.cu's 542), for its three targets; the shard scans that source alone.
  const RunResult first = build(project, {"--shard", "1/2"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(says(first, "compile: 0 cached, 3 compiled")) << first.err;
  EXPECT_TRUE(says(first, "scan: 0 cached, 1 scanned")) << first.err;
  EXPECT_TRUE(says(first, "sm_80 kernels/more.cu")) << first.err;
  EXPECT_FALSE(says(first, "kernels/ops.cu")) << first.err;
  EXPECT_TRUE(fs::exists(project / "basic.1-of-2.kilnpart"));   // the default name
  EXPECT_FALSE(fs::exists(project / "basic.kiln"));
  // The same cache then has the other half to compile, and the whole build nothing more than that.
  const RunResult second = build(project, {"--shard", "2/2"});
  EXPECT_TRUE(says(second, "compile: 0 cached, 3 compiled")) << second.err;
  EXPECT_TRUE(says(second, "scan: 0 cached, 1 scanned")) << second.err;
  const RunResult whole = build(project, {"-o", "basic.kiln"});
  EXPECT_TRUE(says(whole, "compile: 6 cached, 0 compiled")) << whole.err;
  // A shard from the cache: its part holds the entries all the same.
  fs::remove(project / "basic.1-of-2.kilnpart");
  ASSERT_EQ(build(project, {"--shard", "1/2"}).exit_code, 0);
  const RunResult merged = merge(project, {"basic.1-of-2.kilnpart", "basic.2-of-2.kilnpart"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(read_bytes(project / "merged.kiln"), read_bytes(project / "basic.kiln"));
  // One shard is the whole build.
  const std::string only = shard(project, 1, 1);
  ASSERT_EQ(merge(project, {only}, "one.kiln").exit_code, 0);
  EXPECT_EQ(read_bytes(project / "one.kiln"), read_bytes(project / "basic.kiln"));
}

// basic's shard 1 of 2 builds kernels/more.cu, shard 2 kernels/ops.cu (by size, above); src/app.cpp
// asks for a kernel of each. A shard cannot tell the other's kernel from none: the merge, which scans every source, can.
TEST_F(BuildShard, RequestsForAnotherShardsKernelsAreLeftToTheMerge) {
  const fs::path project = m_dir.copy_project("basic");
  const std::string manifest = read_text(project / "kiln.toml");
  const std::string include_dirs = "include_dirs = [\"include\"]\n";
  ASSERT_NE(manifest.find(include_dirs), std::string::npos);
  write_text(project / "kiln.toml", std::string(manifest).replace(manifest.find(include_dirs), include_dirs.size(),
                                                                  include_dirs + "host_sources = [\"src/app.cpp\"]\n"));
  const std::string app = "#include <kiln/kiln.hpp>\n\nvoid run(const kiln::Package& p) {\n  p.kernel(\"launch_all\");\n"
                          "  p.kernel(\"add_one\");\n";
  write_text(project / "src/app.cpp", app + "}\n");
  // Each shard passes --strict, saying once what it left to the merge.
  const auto both_shards = [&](int requests_left) {
    std::vector<std::string> parts;
    for (int i = 1; i <= 2; ++i) {
      parts.push_back("part" + std::to_string(i) + "of2");
      const RunResult r = build(project, {"--shard", std::to_string(i) + "/2", "--strict", "-o", parts.back()});
      EXPECT_EQ(r.exit_code, 0) << r.err;
      EXPECT_FALSE(says(r, "names no kernel")) << r.err;
      EXPECT_TRUE(says(r, std::to_string(requests_left) + " runtime request" + (requests_left == 1 ? " names" : "s name") +
                              " nothing this shard scans, perhaps another shard's units: kiln merge checks " +
                              (requests_left == 1 ? "it" : "them")))
          << r.err;
    }
    return parts;
  };
  std::vector<std::string> parts = both_shards(1);
  const RunResult merged = merge(project, parts, "merged.kiln", {"--strict"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_FALSE(says(merged, "warning")) << merged.err;

  // A request no shard's unit answers: each shard still passes, the merge names it, and fails with --strict.
  write_text(project / "src/app.cpp", app + "  p.kernel(\"no_such_kernel\");\n}\n");
  parts = both_shards(2);
  const std::string named =
      "src/app.cpp:6:12: error: the runtime request for kernel 'no_such_kernel' names no kernel of the kernel sources";
  const RunResult strict = merge(project, parts, "strict.kiln", {"--strict"});
  EXPECT_EQ(strict.exit_code, k_failed) << strict.err;
  EXPECT_TRUE(says(strict, named)) << strict.err;
  EXPECT_FALSE(fs::exists(project / "strict.kiln"));
  const RunResult warned = merge(project, parts, "warned.kiln");
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_TRUE(says(warned, "src/app.cpp:6:12: warning: the runtime request for kernel 'no_such_kernel' names no kernel"))
      << warned.err;
  EXPECT_TRUE(says(warned, "not in it: 'no_such_kernel' (src/app.cpp:6:12)")) << warned.err;
}

TEST_F(BuildShard, BadShardValuesAreUsageErrors) {
  const fs::path project = m_dir.copy_project("basic");
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"3/2", "--shard 3/2: I must be from 1 to N"},
           {"0/2", "--shard 0/2: I must be from 1 to N"},
           {"1/0", "--shard 1/0: N must be from 1 to 4096"},
           {"2", "--shard 2: not I/N (shard I of N, e.g. 2/4)"},
           {"a/b", "--shard a/b: not I/N"},
           {"1/2/3", "--shard 1/2/3: not I/N"}}) {
    const RunResult r = build(project, {"--shard", value});
    EXPECT_EQ(r.exit_code, k_usage) << value;
    EXPECT_TRUE(says(r, message)) << r.err;
  }
}

TEST_F(BuildShard, AMergeRefusesPartsThatDoNotMakeOneBuild) {
  const fs::path project = m_dir.copy_project("basic");
  const std::string p1 = shard(project, 1, 3), p2 = shard(project, 2, 3), p3 = shard(project, 3, 3);
  const std::string other_count = shard(project, 1, 2);
  const std::string other_targets = shard(project, 2, 3, {"--targets", "sm_80"}, "targets2of3");

  const auto refused = [&](const std::vector<std::string>& parts, const std::string& message) {
    const RunResult r = merge(project, parts);
    EXPECT_EQ(r.exit_code, k_bad_input) << r.err;
    EXPECT_TRUE(says(r, message)) << "expected: " << message << "\n" << r.err;
    EXPECT_TRUE(says(r, "no package written")) << r.err;
    EXPECT_FALSE(fs::exists(project / "merged.kiln"));
  };
  refused({p1, p3}, "missing shard 2 of 3 (given: 2); build it with kiln build --shard I/3");
  refused({p2}, "missing shards 1, 3 of 3");
  refused({p1, p2, p2, p3}, "cannot merge " + p2 + " and " + p2 + ": both are shard 2 of 3");
  refused({p1, other_count, p3}, "cannot merge " + p1 + " and " + other_count +
                                     ": they are shards of builds split in different numbers of shards");
  refused({p1, "targets2of3", p3}, "cannot merge " + p1 + " and targets2of3: they are shards of different builds");

  // Parts that agree with each other but not with the sources the merge sees.
  write_text(project / "kernels/more.cu", read_text(project / "kernels/more.cu") + "\n// edited\n");
  refused({p1, p2, p3}, "were built from another manifest, sources, options or targets than kiln.toml here");
}

TEST_F(BuildShard, AHeaderChangedSinceTheShardsFailsTheMergeNamingTheShard) {
  const fs::path project = m_dir.copy_project("basic");
  const std::string p1 = shard(project, 1, 2), p2 = shard(project, 2, 2);
  write_text(project / "include/ops_common.cuh", read_text(project / "include/ops_common.cuh") + "\n// edited\n");
  const RunResult r = merge(project, {p1, p2});
  EXPECT_EQ(r.exit_code, k_failed) << r.err;
  EXPECT_TRUE(says(r, "kernels/ops.cu: error: shard 2 of 2 (" + p2 +
                         ") has no sm_80 image of it that matches the sources here: a header differs"))
      << r.err;
  EXPECT_FALSE(fs::exists(project / "merged.kiln"));
}

TEST_F(BuildShard, DamagedOrForeignFilesAreNotParts) {
  const fs::path project = m_dir.copy_project("basic");
  const std::string p1 = shard(project, 1, 2), p2 = shard(project, 2, 2);
  std::vector<std::byte> bytes = read_bytes(project / p2);
  bytes.resize(bytes.size() / 2);
  write_bytes(project / "cut", bytes);
  bytes = read_bytes(project / p2);
  bytes[bytes.size() / 2] ^= std::byte{0x40};
  write_bytes(project / "flipped", bytes);
  ASSERT_EQ(build(project, {"-o", "basic.kiln"}).exit_code, 0);
  write_text(project / "empty", "");
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           {"cut", "cut: damaged: its checksum does not match"},
           {"flipped", "flipped: damaged: its checksum does not match"},
           {"basic.kiln", "basic.kiln: not a part of a sharded build"},
           {"empty", "empty: not a part of a sharded build"}}) {
    const RunResult r = merge(project, {p1, file});
    EXPECT_EQ(r.exit_code, k_bad_input) << file;
    EXPECT_TRUE(says(r, message)) << r.err;
  }
  const RunResult missing = merge(project, {p1, "no-such-part"});
  EXPECT_EQ(missing.exit_code, k_usage) << missing.err;
}

}  // namespace
}  // namespace kiln::test
