// The compile cache on a real store, without compiling: several header sets per key (a header
// restored to earlier content hits, at most k_header_sets_per_key kept), entries that hold no path of
// the tree that wrote them (a copy elsewhere, another build directory hit), and messages kept
// portable and rendered for the build that reads them.
#include "compile/cached_runner.hpp"
#include "compile/compile_cache.hpp"
#include "compile/portable_messages.hpp"
#include "store/local_store.hpp"
#include "util/diagnostic.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <climits>
#include <fstream>
#include <random>
#include <thread>

namespace kiln::compile {
namespace {

namespace fs = std::filesystem;

class CompileCacheTest : public ::testing::Test {
protected:
  CompileCacheTest() {
    static std::atomic<unsigned> counter{0};
    m_dir = fs::temp_directory_path() / ("kiln-compile-cache-test-" + std::to_string(getpid()) + "-" +
                                         std::to_string(counter++) + "-" + std::to_string(std::random_device{}()));
    make_tree(m_dir / "a/project", m_dir / "a/build");
  }
  ~CompileCacheTest() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  static void make_tree(const fs::path& project, const fs::path& build) {
    write(project / "kernels/k.cu", "#include \"k.cuh\"\n#include \"config.h\"\n__global__ void k(float* x) { x[0] = N; }\n");
    write(project / "include/k.cuh", "#define TWICE(x) ((x) + (x))\n");
    write(build / "gen/config.h", "#define N 4\n");
  }

  // The job of kernels/k.cu in `project`, built into `build`, shown from a directory where the
  // project looks like `prefix`.
  static CompileJob job(const fs::path& project, const fs::path& build, const std::string& prefix = "") {
    CompileJob j;
    j.root = project;
    j.source = "kernels/k.cu";
    j.display_prefix = prefix;
    j.manifest_file = "kiln.toml";
    j.manifest_entry = place(prefix + "kiln.toml", 4);
    j.target = "sm_90";
    j.unit = "kernels/k.cu";
    j.nvrtc_options = {"-Iinclude", "-I" + (build / "gen").string(), "-I/opt/cuda/include"};
    j.work_dir = build / "scratch";
    return j;
  }
  CompileJob job_a(const std::string& prefix = "") const { return job(m_dir / "a/project", m_dir / "a/build", prefix); }

  // One build's cache: it remembers header hashes for its lifetime, as a build does.
  CompileCache cache(const fs::path& build) {
    if (!m_store) m_store = std::make_unique<store::LocalStore>(m_dir / "cache", 0);
    CacheContext context;
    context.cuda_root = "/opt/cuda";
    context.toolchain = "test toolchain";
    context.build_start.tv_sec = INT_MAX;   // every file is older: outputs are stored
    context.build_dir = build;
    context.kiln_include_dir = "/opt/kiln/include";
    return CompileCache(*m_store, context);
  }

  // What a compile of portable_job(job) gave: an image naming `tag`, and the headers it read as
  // NVRTC names them (relative to the root, or absolute).
  static CompileOutput compiled(const fs::path& build, const std::string& tag, const std::string& log = "") {
    CompileOutput out;
    out.ok = true;
    out.image = {std::byte{0x7f}, static_cast<std::byte>(tag.at(0))};
    out.headers = {"include/k.cuh", (build / "gen/config.h").string()};
    out.log = log;
    return out;
  }

  fs::path m_dir;
  std::unique_ptr<store::LocalStore> m_store;
};

TEST_F(CompileCacheTest, AHeaderRestoredToEarlierContentHitsItsEarlierOutput) {
  const fs::path header = m_dir / "a/project/include/k.cuh";
  cache(m_dir / "a/build").store(job_a(), compiled(m_dir / "a/build", "1"));
  write(header, "#define TWICE(x) (2 * (x))\n");
  EXPECT_FALSE(cache(m_dir / "a/build").lookup(job_a())) << "the header changed";
  cache(m_dir / "a/build").store(job_a(), compiled(m_dir / "a/build", "2"));
  write(header, "#define TWICE(x) ((x) + (x))\n");
  const std::optional<CompileOutput> restored = cache(m_dir / "a/build").lookup(job_a());
  ASSERT_TRUE(restored) << "the first header set is still kept";
  EXPECT_EQ(restored->image, compiled(m_dir / "a/build", "1").image);
  write(header, "#define TWICE(x) (2 * (x))\n");
  const std::optional<CompileOutput> again = cache(m_dir / "a/build").lookup(job_a());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->image, compiled(m_dir / "a/build", "2").image);
}

// A runner whose every compile gives `output`, counting them.
class FixedRunner final : public JobRunner {
public:
  explicit FixedRunner(CompileOutput output) : m_output(std::move(output)) {}
  std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn&) override {
    compiles += jobs.size();
    return std::vector<CompileOutput>(jobs.size(), m_output);
  }
  std::size_t compiles = 0;

private:
  CompileOutput m_output;
};

// A compile whose headers are unknown (NVRTC's time trace could not be read) is used but never
// stored: an entry listing no headers would be a hit however the headers changed.
TEST_F(CompileCacheTest, ACompileWhoseHeadersAreUnknownIsNotStored) {
  for (const bool unknown : {true, false}) {
    CompileOutput out = compiled(m_dir / "a/build", unknown ? "u" : "k");
    out.headers_unknown = unknown;
    FixedRunner inner(out);
    CompileCache one_build = cache(m_dir / "a/build");
    CacheCounts counts;
    const auto always = [](const CompileJob&, const CompileOutput&) { return true; };
    const std::unique_ptr<JobRunner> runner = make_cached_runner(inner, one_build, always, always, counts);
    const std::vector<CompileJob> jobs = {job_a()};
    ASSERT_TRUE(runner->run(jobs, nullptr).at(0).ok);
    ASSERT_TRUE(runner->run(jobs, nullptr).at(0).ok);
    EXPECT_EQ(inner.compiles, unknown ? 2u : 1u) << (unknown ? "stored without its headers" : "not stored");
    std::error_code ignored;
    fs::remove_all(m_dir / "cache", ignored);
    m_store.reset();
  }
}

TEST_F(CompileCacheTest, AHitCarriesTheTimeItsCompileTook) {
  CompileOutput out = compiled(m_dir / "a/build", "1");
  out.seconds = 2.5;
  cache(m_dir / "a/build").store(job_a(), out);
  const std::optional<CompileOutput> hit = cache(m_dir / "a/build").lookup(job_a());
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->seconds, 0) << "nothing was compiled";
  EXPECT_EQ(hit->recorded_seconds, 2.5) << "what sharded builds cut by (shard/compile_times.hpp)";
}

TEST_F(CompileCacheTest, AtMostSoManyHeaderSetsAreKeptPerKeyTheOldestGoingFirst) {
  const fs::path header = m_dir / "a/project/include/k.cuh";
  for (std::size_t i = 0; i <= k_header_sets_per_key; ++i) {
    write(header, "// version " + std::to_string(i) + "\n");
    cache(m_dir / "a/build").store(job_a(), compiled(m_dir / "a/build", std::to_string(i)));
  }
  write(header, "// version 0\n");
  EXPECT_FALSE(cache(m_dir / "a/build").lookup(job_a())) << "the oldest set was dropped";
  for (std::size_t i = 1; i <= k_header_sets_per_key; ++i) {
    write(header, "// version " + std::to_string(i) + "\n");
    EXPECT_TRUE(cache(m_dir / "a/build").lookup(job_a())) << "version " << i;
  }
}

TEST_F(CompileCacheTest, StoringASetAgainKeepsItOnceAndFirst) {
  const fs::path header = m_dir / "a/project/include/k.cuh";
  for (int round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < k_header_sets_per_key; ++i) {
      write(header, "// version " + std::to_string(i) + "\n");
      cache(m_dir / "a/build").store(job_a(), compiled(m_dir / "a/build", std::to_string(i)));
    }
  for (std::size_t i = 0; i < k_header_sets_per_key; ++i) {
    write(header, "// version " + std::to_string(i) + "\n");
    EXPECT_TRUE(cache(m_dir / "a/build").lookup(job_a())) << "version " << i;
  }
}

TEST_F(CompileCacheTest, ACopyOfTheTreeAndAnotherBuildDirectoryHit) {
  cache(m_dir / "a/build").store(job_a(), compiled(m_dir / "a/build", "1"));
  const fs::path project = m_dir / "b/deeper/project", build = m_dir / "elsewhere/build-2";
  make_tree(project, build);
  const std::optional<CompileOutput> hit = cache(build).lookup(job(project, build));
  ASSERT_TRUE(hit) << "no path of the first tree or build directory is in the key or the entry";
  EXPECT_EQ(hit->headers, (std::vector<std::string>{"include/k.cuh", (build / "gen/config.h").string()}))
      << "headers are named in the tree that reads the entry";
  write(build / "gen/config.h", "#define N 5\n");
  EXPECT_FALSE(cache(build).lookup(job(project, build))) << "a generated header is checked where it is now";
}

TEST_F(CompileCacheTest, MessagesAreRenderedForTheBuildThatReadsThem) {
  const CompileJob a = job_a("a/project/");
  const CompileJob portable = cache(m_dir / "a/build").portable_job(a);
  EXPECT_EQ(portable.display_prefix, k_display_token);
  EXPECT_EQ(portable.manifest_entry.file, std::string(k_display_token) + "kiln.toml");
  EXPECT_EQ(portable.manifest_entry.line, 4);
  // As the compilers write it for the portable job: the display token before relative paths,
  // absolute paths of the build directory as they are.
  const std::string log = portable.display_prefix + "kernels/k.cu:3: warning #177-D: unused\n" +
                          (m_dir / "a/build/gen/config.h").string() + ":1: warning: redefined\n" +
                          "note: see " + portable.manifest_entry.file + ":4";
  cache(m_dir / "a/build").store(a, compiled(m_dir / "a/build", "1", log));
  const std::string shown = cache(m_dir / "a/build").rendered(a, compiled(m_dir / "a/build", "1", log)).log;
  EXPECT_EQ(shown, "a/project/kernels/k.cu:3: warning #177-D: unused\n" + (m_dir / "a/build/gen/config.h").string() +
                       ":1: warning: redefined\nnote: see a/project/kiln.toml:4");

  const fs::path project = m_dir / "b/deeper/project", build = m_dir / "elsewhere/build-2";
  make_tree(project, build);
  const std::optional<CompileOutput> hit = cache(build).lookup(job(project, build, "../b/deeper/project/"));
  ASSERT_TRUE(hit) << "an entry with messages serves another tree";
  EXPECT_EQ(hit->log, "../b/deeper/project/kernels/k.cu:3: warning #177-D: unused\n" +
                          (build / "gen/config.h").string() + ":1: warning: redefined\n" +
                          "note: see ../b/deeper/project/kiln.toml:4");
}

// A link group's job has no display prefix of its own: its members' messages carry theirs.
TEST_F(CompileCacheTest, ALinkGroupsMessagesAreRenderedWithItsMembersPrefix) {
  CompileJob group;
  group.root = m_dir / "a/project";
  group.source = "link group 'rdc'";
  group.members = {job_a("a/project/"), job_a("a/project/")};
  const CompileJob portable = cache(m_dir / "a/build").portable_job(group);
  EXPECT_EQ(portable.display_prefix, "");
  for (const CompileJob& member : portable.members) EXPECT_EQ(member.display_prefix, k_display_token);
  CompileOutput out = compiled(m_dir / "a/build", "1", std::string(k_display_token) + "kernels/k.cu:3: warning: w");
  EXPECT_EQ(cache(m_dir / "a/build").rendered(group, out).log, "a/project/kernels/k.cu:3: warning: w");
}

TEST_F(CompileCacheTest, AnEntryWithMessagesMissesForAnotherManifestLine) {
  const CompileJob a = job_a();
  cache(m_dir / "a/build").store(a, compiled(m_dir / "a/build", "1", "kernels/k.cu:3: warning: w"));
  CompileJob moved = a;
  moved.manifest_entry = place("kiln.toml", 9);
  EXPECT_FALSE(cache(m_dir / "a/build").lookup(moved)) << "its messages point at the manifest's line 4";
  cache(m_dir / "a/build").store(moved, compiled(m_dir / "a/build", "2", "kernels/k.cu:3: warning: w"));
  EXPECT_TRUE(cache(m_dir / "a/build").lookup(a)) << "each context keeps its own set";
  EXPECT_TRUE(cache(m_dir / "a/build").lookup(moved));
  CompileOutput quiet = compiled(m_dir / "a/build", "3");
  CompileJob elsewhere = a;
  elsewhere.manifest_entry = place("kiln.toml", 12);
  cache(m_dir / "a/build").store(elsewhere, quiet);
  EXPECT_TRUE(cache(m_dir / "a/build").lookup(elsewhere));
}

// Builds racing on one key: each reader finds a whole entry that reads, or none; never half of one.
TEST_F(CompileCacheTest, RacingWritersAndReadersNeverSeeHalfAnEntry) {
  std::atomic<int> broken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      store::LocalStore own(m_dir / "cache", 0);
      for (int i = 0; i < 25; ++i) {
        CacheContext context;
        context.cuda_root = "/opt/cuda";
        context.toolchain = "test toolchain";
        context.build_start.tv_sec = INT_MAX;
        context.build_dir = m_dir / "a/build";
        CompileCache racing(own, context);
        racing.store(job_a(), compiled(m_dir / "a/build", std::to_string(t)));
        const std::optional<CompileOutput> hit = racing.lookup(job_a());
        if (hit && (hit->image.size() != 2 || !hit->ok)) ++broken;
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(broken.load(), 0);
  EXPECT_TRUE(cache(m_dir / "a/build").lookup(job_a()));
}

}  // namespace
}  // namespace kiln::compile
