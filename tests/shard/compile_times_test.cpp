// Shards cut by recorded compile times (shard/compile_times.hpp): the file's grammar and its errors,
// the times a build measured (a compile's, a hit's recorded one), a cut with recorded times, with a
// mix of recorded and estimated (scaled by the jobs that have both), and the same cut wherever it is
// computed from the same tree and file.
#include "shard/compile_times.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace kiln::shard {
namespace {

namespace fs = std::filesystem;

compile::CompileJob timed_job(const std::string& unit, const std::string& target, const fs::path& root = "/nonexistent") {
  compile::CompileJob job;
  job.unit = unit;
  job.source = unit;
  job.target = target;
  job.root = root;
  return job;
}

std::map<std::uint64_t, std::uint64_t> shard_loads(const ShardOf& shards, const JobCost& cost, const plan::BuildPlan& plan) {
  std::map<std::uint64_t, std::uint64_t> load;
  for (const compile::CompileJob& job : plan.jobs) load[shards.at({job.unit, job.target})] += cost(job);
  return load;
}

class SourceTree {
public:
  SourceTree() : m_dir(fs::temp_directory_path() / ("kiln-compile-times-" + std::to_string(::getpid()))) {
    fs::create_directories(m_dir);
  }
  ~SourceTree() {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  const fs::path& add(const std::string& name, std::size_t bytes) {
    std::ofstream(m_dir / name) << std::string(bytes, 'x');
    return m_dir;
  }
  const fs::path& dir() const { return m_dir; }

private:
  fs::path m_dir;
};

TEST(CompileTimes, FormatAndParseRoundTrip) {
  const CompileTimes times{{{"kernels/a b.cu", "sm_80"}, 2500000}, {{"kernels/b.cu", "compute_90"}, 7}};
  const std::string text = format_times(times);
  EXPECT_EQ(text.substr(0, text.find('\n')), "kiln compile times 1");
  EXPECT_NE(text.find("\n2500000 sm_80 kernels/a b.cu\n"), std::string::npos) << text;
  Result<CompileTimes> back = parse_times(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, times);
  // Windows line ends, comments and empty lines are read too.
  back = parse_times("kiln compile times 1\r\n# a comment\r\n\r\n12 sm_90 k.cu\r\n");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, (CompileTimes{{{"k.cu", "sm_90"}, 12}}));
}

TEST(CompileTimes, ANameThatWouldBreakTheLineIsLeftOut) {
  const CompileTimes times{{{"two\nlines.cu", "sm_80"}, 1}, {{"k.cu", "sm 80"}, 2}, {{"ok.cu", "sm_80"}, 3}};
  Result<CompileTimes> back = parse_times(format_times(times));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, (CompileTimes{{{"ok.cu", "sm_80"}, 3}}));
}

TEST(CompileTimes, ParseErrorsNameTheLine) {
  const auto error = [](const std::string& text) {
    Result<CompileTimes> r = parse_times(text);
    return r.ok() ? std::string("parsed") : r.error().message;
  };
  EXPECT_EQ(error(""), "line 1: not a file of compile times (it is empty)");
  EXPECT_EQ(error("kiln part\n"),
            "line 1: not a file of compile times (it starts with 'kiln compile times 1'; kiln build --write-times FILE "
            "writes one)");
  EXPECT_EQ(error("kiln compile times 1\n12 sm_80\n"), "line 2: not '<microseconds> <target> <unit>': 12 sm_80");
  EXPECT_EQ(error("kiln compile times 1\nx sm_80 k.cu\n"), "line 2: not '<microseconds> <target> <unit>': x sm_80 k.cu");
  EXPECT_EQ(error("kiln compile times 1\n-5 sm_80 k.cu\n"), "line 2: not '<microseconds> <target> <unit>': -5 sm_80 k.cu");
  EXPECT_EQ(error("kiln compile times 1\n5  k.cu\n"), "line 2: not '<microseconds> <target> <unit>': 5  k.cu");
  EXPECT_EQ(error("kiln compile times 1\n1 sm_80 k.cu\n\n2 sm_80 k.cu\n"), "line 4: k.cu for sm_80 is listed twice");
  EXPECT_EQ(error("kiln compile times 2\n"),
            "line 1: not a file of compile times (it starts with 'kiln compile times 1'; kiln build --write-times FILE "
            "writes one)");
}

TEST(CompileTimes, ReadErrorsNameTheFile) {
  const fs::path missing = fs::temp_directory_path() / "kiln-no-such-times.txt";
  Result<CompileTimes> r = read_times(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("cannot read the compile times " + missing.string() + ": ", 0), 0u) << r.error().message;
  SourceTree tree;
  std::ofstream(tree.dir() / "times.txt") << "kiln compile times 1\nbad\n";
  r = read_times(tree.dir() / "times.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, (tree.dir() / "times.txt").string() + ": line 2: not '<microseconds> <target> <unit>': bad");
}

TEST(CompileTimes, ABuildRecordsItsCompilesAndItsHitsRecordedTimes) {
  plan::BuildPlan plan;
  plan.jobs = {timed_job("a.cu", "sm_80"), timed_job("a.cu", "sm_90"), timed_job("b.cu", "sm_80"), timed_job("c.cu", "sm_80")};
  std::vector<compile::CompileOutput> outputs(4);
  outputs[0].seconds = 2.5;                 // compiled here
  outputs[1].from_cache = true;             // a hit: the time of the compile that stored it
  outputs[1].recorded_seconds = 1.25;
  outputs[2].from_cache = true;             // a hit from an entry that recorded no time
  outputs[3].seconds = 0;                   // another shard's job
  EXPECT_EQ(measured_times(plan, outputs), (CompileTimes{{{"a.cu", "sm_80"}, 2500000}, {{"a.cu", "sm_90"}, 1250000}}));
}

// The trial's shape (issue 33): one source whose compiles cost ten times the others' though it is
// the smallest file. Cut by the estimate its two targets land with others; cut by the recorded
// times, the shards' loads are within 1.5x of each other.
TEST(CompileTimes, RecordedTimesBalanceWhatTheEstimateCannotSee) {
  SourceTree tree;
  plan::BuildPlan plan;
  CompileTimes times;
  tree.add("a_heavy.cu", 300);
  for (const char* target : {"sm_80", "sm_90"}) {
    plan.jobs.push_back(timed_job("a_heavy.cu", target, tree.dir()));
    times[{"a_heavy.cu", target}] = 20'000'000;
  }
  for (int i = 1; i <= 8; ++i) {
    const std::string unit = "light" + std::to_string(i) + ".cu";
    tree.add(unit, 30'000);
    for (const char* target : {"sm_80", "sm_90"}) {
      plan.jobs.push_back(timed_job(unit, target, tree.dir()));
      times[{unit, target}] = 1'000'000;
    }
  }
  const JobCost actual = [&](const compile::CompileJob& job) { return times.at({job.unit, job.target}); };
  const auto ratio = [&](const ShardOf& cut) {
    const std::map<std::uint64_t, std::uint64_t> load = shard_loads(cut, actual, plan);
    return static_cast<double>(std::max(load.at(1), load.at(2))) / static_cast<double>(std::min(load.at(1), load.at(2)));
  };
  EXPECT_GT(ratio(assign_shards(plan, 2)), 1.5) << "the estimate sees the light sources' bytes";
  const TimedCost timed = timed_cost(plan, times);
  EXPECT_EQ(timed.recorded, 18u);
  EXPECT_EQ(timed.estimated, 0u);
  const ShardOf cut = assign_shards(plan, 2, timed.cost);
  EXPECT_NE(cut.at({"a_heavy.cu", "sm_80"}), cut.at({"a_heavy.cu", "sm_90"})) << "the heavy unit's targets apart";
  EXPECT_EQ(shard_loads(cut, actual, plan), (std::map<std::uint64_t, std::uint64_t>{{1, 28'000'000}, {2, 28'000'000}}));
  EXPECT_LE(ratio(cut), 1.5);
}

TEST(CompileTimes, JobsWithoutATimeAreEstimatedInTheRecordedJobsUnit) {
  SourceTree tree;
  tree.add("a.cu", 16 * 1024);   // estimated 32 KiB
  tree.add("b.cu", 0);           // estimated 16 KiB
  tree.add("new.cu", 48 * 1024); // estimated 64 KiB, not in the times
  plan::BuildPlan plan;
  for (const char* unit : {"a.cu", "b.cu", "new.cu"}) plan.jobs.push_back(timed_job(unit, "sm_80", tree.dir()));
  const CompileTimes times{{{"a.cu", "sm_80"}, 4'000'000}, {{"b.cu", "sm_80"}, 2'000'000}, {{"gone.cu", "sm_80"}, 9}};
  const TimedCost timed = timed_cost(plan, times);
  EXPECT_EQ(timed.recorded, 2u);
  EXPECT_EQ(timed.estimated, 1u);
  EXPECT_EQ(timed.cost(plan.jobs[0]), 4'000'000u) << "recorded";
  EXPECT_EQ(timed.cost(plan.jobs[1]), 2'000'000u) << "recorded";
  // 6 s over 48 KiB of estimate: 64 KiB is 8 s.
  EXPECT_EQ(timed.cost(plan.jobs[2]), 8'000'000u) << "estimated, scaled";
  // No job of the plan timed: the estimate at a fixed rate, which cuts as the estimate alone does.
  const TimedCost none = timed_cost(plan, {{{"gone.cu", "sm_80"}, 9}});
  EXPECT_EQ(none.recorded, 0u);
  EXPECT_EQ(none.cost(plan.jobs[2]), 64u * 1024 * k_default_micros_per_byte);
  EXPECT_EQ(assign_shards(plan, 2, none.cost), assign_shards(plan, 2));
  // With the times, new.cu (8 s) is alone against a.cu and b.cu (6 s); by the estimate too, here.
  const ShardOf cut = assign_shards(plan, 2, timed.cost);
  EXPECT_EQ(cut.at({"new.cu", "sm_80"}), 1u);
  EXPECT_EQ(cut.at({"a.cu", "sm_80"}), 2u);
  EXPECT_EQ(cut.at({"b.cu", "sm_80"}), 2u);
}

// Every shard (and the plan before the scan and after it) must cut alike: the cut depends on the
// jobs, their sources and the times' text only, not on the order jobs are listed in or on anything
// a machine keeps of its own.
TEST(CompileTimes, EveryShardCutsAlikeFromTheSameTreeAndFile) {
  SourceTree tree;
  plan::BuildPlan plan;
  for (int i = 0; i < 12; ++i) {
    const std::string unit = "u" + std::to_string(i) + ".cu";
    tree.add(unit, static_cast<std::size_t>(1000 * (i + 1)));
    for (const char* target : {"sm_80", "sm_90", "compute_90"}) plan.jobs.push_back(timed_job(unit, target, tree.dir()));
  }
  CompileTimes recorded;
  for (int i = 0; i < 12; i += 2) recorded[{"u" + std::to_string(i) + ".cu", "sm_80"}] = 100'000u * static_cast<unsigned>(i * i + 1);
  const std::string file = format_times(recorded);
  // Two machines read the same file.
  const Result<CompileTimes> first = parse_times(file), second = parse_times(file);
  ASSERT_TRUE(first.ok() && second.ok());
  plan::BuildPlan scanned = plan;   // the plan after the scan: the same jobs, in another order here
  std::reverse(scanned.jobs.begin(), scanned.jobs.end());
  for (compile::CompileJob& job : scanned.jobs) job.name_expressions = {"k<int>"};
  for (const std::uint64_t count : {2u, 3u, 5u}) {
    const ShardOf cut = assign_shards(plan, count, timed_cost(plan, *first).cost);
    EXPECT_EQ(assign_shards(plan, count, timed_cost(plan, *second).cost), cut) << count;
    EXPECT_EQ(assign_shards(scanned, count, timed_cost(scanned, *second).cost), cut) << count;
  }
  // Another file is another cut, which the merge then refuses (merge_check_test.cpp).
  CompileTimes other = recorded;
  other[{"u1.cu", "sm_80"}] = 900'000'000;
  EXPECT_NE(assign_shards(plan, 2, timed_cost(plan, other).cost), assign_shards(plan, 2, timed_cost(plan, recorded).cost));
}

}  // namespace
}  // namespace kiln::shard
