// kiln build --shard I/N and kiln merge: parts merged in any order write the bytes the unsharded build
// writes (basic: 2 units x 3 targets; carried: carried sources and an nvcc unit; linking: link groups
// and variants); a shard compiles only its jobs and scans only their sources; a request for another
// shard's kernel passes a shard's --strict, and the merge reports (with --strict: fails on) a request
// no shard answers; what a merge refuses: a missing, repeated or foreign
// part, parts of other shard counts, of another manifest or source, a header changed since, a damaged
// part, a file that is no part; bad --shard values. Compile times a whole build wrote (--write-times)
// change the cut (--shard-times); shards cut differently do not merge.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <map>

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
  // against kernels/ops.cu's 542), for its three targets. That source is device-only with nothing a
  // parse would name, so it is left to NVRTC's image, and the shard scans nothing.
  const RunResult first = build(project, {"--shard", "1/2"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(says(first, "compile: 0 cached, 3 compiled")) << first.err;
  EXPECT_TRUE(says(first, "scan: 0 cached, 0 scanned, 1 source left to NVRTC's image")) << first.err;
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

// A project whose costly source is the smaller file: heavy.cu instantiates CUB's BlockReduce and
// BlockRadixSort (seconds to compile), big.cu is a trivial kernel under 40 KB of comments. The
// estimate (bytes) gives shard 1 big.cu; the times a whole build recorded give it heavy.cu.
fs::path write_timed_project(const fs::path& dir) {
  const fs::path project = dir / "timed";
  write_text(project / "kiln.toml",
             "name = \"timed\"\ntargets = [\"sm_80\"]\n\n[[source]]\npath = \"big.cu\"\n\n[[source]]\npath = \"heavy.cu\"\n");
  std::string big = "__global__ void fill(float* x, float v) { x[threadIdx.x] = v; }\n";
  for (int i = 0; i < 500; ++i) big += "// a long comment that costs the estimate bytes and the compiler nothing at all\n";
  write_text(project / "big.cu", big);
  write_text(project / "heavy.cu", R"(#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
template <typename T, int B>
__global__ void sort_sum(T* x, T* out) {
  using Sort = cub::BlockRadixSort<T, B, 4>;
  using Reduce = cub::BlockReduce<T, B>;
  __shared__ union { typename Sort::TempStorage sort; typename Reduce::TempStorage reduce; } storage;
  T items[4];
  for (int k = 0; k < 4; ++k) items[k] = x[threadIdx.x * 4 + k];
  Sort(storage.sort).Sort(items);
  __syncthreads();
  const T sum = Reduce(storage.reduce).Sum(items);
  if (threadIdx.x == 0) *out = sum;
}
template __global__ void sort_sum<float, 128>(float*, float*);
template __global__ void sort_sum<int, 128>(int*, int*);
)");
  return project;
}

// "<microseconds> <target> <unit>" lines of a compile times file, by unit.
std::map<std::string, long long> times_of(const std::string& text) {
  std::map<std::string, long long> times;
  std::size_t start = text.find('\n') + 1;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    times[line.substr(line.rfind(' ') + 1)] = std::stoll(line.substr(0, line.find(' ')));
  }
  return times;
}

TEST_F(BuildShard, RecordedCompileTimesChangeTheCut) {
  const fs::path project = write_timed_project(m_dir.path());
  const RunResult estimated = build(project, {"--shard", "1/2", "-o", "est1"}, "cache-est1");
  ASSERT_EQ(estimated.exit_code, 0) << estimated.err;
  EXPECT_TRUE(says(estimated, "shard 1 of 2: cut by the estimate")) << estimated.err;
  EXPECT_TRUE(says(estimated, "sm_80 big.cu")) << estimated.err;
  EXPECT_FALSE(says(estimated, "heavy.cu")) << estimated.err;

  // One whole build records the times; a warm one writes the same (a hit's recorded time).
  const RunResult whole = build(project, {"-o", "whole.kiln", "--write-times", "times.txt"}, "cache-whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_TRUE(says(whole, "wrote times.txt: the compile times of 2 of 2 jobs")) << whole.err;
  const std::string text = read_text(project / "times.txt");
  EXPECT_EQ(text.substr(0, text.find('\n')), "kiln compile times 1");
  const std::map<std::string, long long> times = times_of(text);
  ASSERT_EQ(times.size(), 2u) << text;
  ASSERT_GT(times.at("heavy.cu"), times.at("big.cu")) << "the premise: CUB costs more than comments\n" << text;
  const RunResult warm = build(project, {"-o", "whole.kiln", "--write-times", "warm.txt"}, "cache-whole");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_TRUE(says(warm, "compile: 2 cached, 0 compiled")) << warm.err;
  EXPECT_EQ(read_text(project / "warm.txt"), text);

  // Cut by the times, shard 1 compiles heavy.cu; the parts merge into the whole build's bytes.
  const RunResult timed = build(project, {"--shard", "1/2", "-o", "timed1", "--shard-times", "times.txt"}, "cache-t1");
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  EXPECT_TRUE(says(timed, "shard 1 of 2: cut by the compile times in times.txt (2 of 2 jobs timed)")) << timed.err;
  EXPECT_TRUE(says(timed, "sm_80 heavy.cu")) << timed.err;
  EXPECT_FALSE(says(timed, "big.cu")) << timed.err;
  shard(project, 2, 2, {"--shard-times", "times.txt"}, "timed2");
  const RunResult merged = merge(project, {"timed1", "timed2"}, "merged.kiln", {"--write-times", "merged.txt"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(read_bytes(project / "merged.kiln"), read_bytes(project / "whole.kiln"));
  EXPECT_EQ(times_of(read_text(project / "merged.txt")).size(), 2u) << "the shards' times, from the parts";

  // A shard cut by the estimate and one cut by the times: heavy.cu in both, big.cu in neither.
  shard(project, 2, 2, {}, "est2");
  const RunResult mixed = merge(project, {"timed1", "est2"});
  EXPECT_EQ(mixed.exit_code, k_bad_input) << mixed.err;
  EXPECT_TRUE(says(mixed, "cannot merge timed1 and est2: their shards were cut differently (timed1 by the compile "
                          "times in times.txt (2 of 2 jobs timed), est2 by the estimate); build every shard with the "
                          "same --shard-times file, or none"))
      << mixed.err;
}

TEST_F(BuildShard, ShardTimesErrors) {
  const fs::path project = m_dir.copy_project("basic");
  write_text(project / "times.txt", "kiln compile times 1\n12 sm_80\n");
  RunResult r = build(project, {"--shard-times", "times.txt"});
  EXPECT_EQ(r.exit_code, k_usage) << r.err;
  EXPECT_TRUE(says(r, "--shard-times times.txt: only with --shard I/N")) << r.err;
  r = build(project, {"--shard", "1/2", "--shard-times", "times.txt"});
  EXPECT_EQ(r.exit_code, k_bad_input) << r.err;
  EXPECT_TRUE(says(r, "times.txt: line 2: not '<microseconds> <target> <unit>': 12 sm_80")) << r.err;
  r = build(project, {"--shard", "1/2", "--shard-times", "no-such-times.txt"});
  EXPECT_EQ(r.exit_code, k_usage) << r.err;
  // Times of units this build does not have (another commit's): those jobs are estimated.
  write_text(project / "times.txt", "kiln compile times 1\n5000000 sm_80 kernels/gone.cu\n");
  r = build(project, {"--shard", "1/2", "--shard-times", "times.txt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(says(r, "cut by the compile times in times.txt (0 of 6 jobs timed)")) << r.err;
  EXPECT_TRUE(says(r, "sm_80 kernels/more.cu")) << "as the estimate cuts\n" << r.err;
  // Never over an input or an output of the build.
  for (const auto& [file, what] : std::vector<std::pair<std::string, std::string>>{
           {"kiln.toml", "the manifest"}, {"basic.kiln", "the output basic.kiln"}, {"times.txt", "the --shard-times file"}}) {
    const std::string before = read_text(project / "kiln.toml");
    r = build(project, {"--shard", "1/2", "-o", "basic.kiln", "--shard-times", "times.txt", "--write-times", file});
    EXPECT_EQ(r.exit_code, k_usage) << r.err;
    EXPECT_TRUE(says(r, "refusing to write the compile times to " + file + ": it is " + what)) << r.err;
    EXPECT_EQ(read_text(project / "kiln.toml"), before);
  }
  // A file that cannot be written is the machine's problem, named.
  r = build(project, {"-o", "basic.kiln", "--write-times", "no/such/dir/times.txt"});
  EXPECT_EQ(r.exit_code, k_environment) << r.err;
  EXPECT_TRUE(says(r, "cannot write the compile times no/such/dir/times.txt")) << r.err;
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
