// Keys travel (tests/fixtures/projects/travel: NVRTC- and nvcc-compiled sources, one NVRTC warns
// about, one NVRTC rejects, an include directory under the project): a second checkout at another
// depth, built from another directory into another build directory with the same cache, compiles
// nothing and writes the same bytes, and its messages name its own files; generated headers under
// the build directory (<build>) do the same; a header restored to earlier content hits.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

struct Counts {
  int cached = -1;
  int compiled = -1;
};

// `-v`'s "compile: N cached, M compiled".
Counts compile_counts(const RunResult& r) {
  static const std::regex line(R"(compile: (\d+) cached, (\d+) compiled)");
  std::smatch m;
  if (!std::regex_search(r.err, m, line)) return {};
  return {std::stoi(m[1].str()), std::stoi(m[2].str())};
}

bool says(const RunResult& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

class BuildTravel : public ::testing::Test {
protected:
  // `kiln build <manifest> -o <output> -v` run in the scratch directory, with the one cache.
  RunResult build(const std::string& manifest, const std::string& output, const std::vector<std::string>& extra = {}) {
    fs::create_directories((m_dir.path() / output).parent_path());
    std::vector<std::string> args{"build", manifest, "-o", output, "-v"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, m_dir.path(), {"KILN_CACHE_DIR=" + (m_dir.path() / "cache").string()});
  }

  // The project with kernels/generated.cu added, its header in <build>/gen.
  static void add_generated_source(const fs::path& project) {
    std::string manifest = read_text(project / "kiln.toml");
    manifest.replace(manifest.find("include_dirs = [\"include\"]"), 26, "include_dirs = [\"include\", \"<build>/gen\"]");
    write_text(project / "kiln.toml", manifest + "\n[[source]]\npath = \"kernels/generated.cu\"\n");
  }
  // What a build directory's generator writes: a header with a warning of its own.
  static void generate_header(const fs::path& build_dir) {
    fs::create_directories(build_dir / "gen");
    write_text(build_dir / "gen/config.h",
               "#pragma once\n__device__ inline float configured_scale(float x) {\n  int unused_there = 1;\n"
               "  return 3.0f * x;\n}\n");
  }

  ScratchDir m_dir;
};

TEST_F(BuildTravel, ASecondCheckoutAtAnotherDepthHitsEveryCompileAndWritesTheSameBytes) {
  m_dir.copy_project("travel", "a/travel");
  const RunResult cold = build("a/travel/kiln.toml", "out-a/travel.kiln");
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  const Counts first = compile_counts(cold);
  ASSERT_GT(first.compiled, 0) << cold.err;
  ASSERT_TRUE(says(cold, "a/travel/kernels/warn.cu:2:")) << cold.err;
  ASSERT_TRUE(says(cold, "a/travel/kernels/rejected.cu: note: NVRTC cannot compile it")) << cold.err;

  m_dir.copy_project("travel", "deep/er/b/travel");
  const RunResult warm = build("deep/er/b/travel/kiln.toml", "out-b/x/travel.kiln");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  const Counts second = compile_counts(warm);
  EXPECT_EQ(second.compiled, 0) << "warnings and NVRTC's verdict are kept portably\n" << warm.err;
  // Every image hits; NVRTC's failed try at rejected.cu is a remembered verdict, not compiled again.
  EXPECT_EQ(second.cached, first.compiled - 1) << warm.err;
  EXPECT_EQ(read_bytes(m_dir.path() / "out-b/x/travel.kiln"), read_bytes(m_dir.path() / "out-a/travel.kiln"));
  // The cached messages name the second checkout's files, as a compile there would.
  EXPECT_TRUE(says(warm, "deep/er/b/travel/kernels/warn.cu:2:")) << warm.err;
  EXPECT_TRUE(says(warm, "deep/er/b/travel/kernels/rejected.cu: note: NVRTC cannot compile it")) << warm.err;
  EXPECT_FALSE(says(warm, "a/travel/kernels/warn.cu")) << warm.err;
}

TEST_F(BuildTravel, GeneratedHeadersUnderTheBuildDirectoryAreNamedByItWhereverItLies) {
  const fs::path a = m_dir.copy_project("travel", "a/travel");
  add_generated_source(a);
  generate_header(a / "b");   // a build directory inside the checkout
  const RunResult cold = build("a/travel/kiln.toml", "a/travel/b/travel.kiln");
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  ASSERT_TRUE(says(cold, (a / "b/gen/config.h").string() + ":3:")) << cold.err;
  const Counts first = compile_counts(cold);

  const fs::path b = m_dir.copy_project("travel", "second/travel");
  add_generated_source(b);
  generate_header(m_dir.path() / "outside-b");   // outside the checkout
  const RunResult warm = build("second/travel/kiln.toml", "outside-b/travel.kiln");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_EQ(compile_counts(warm).compiled, 0) << warm.err;
  EXPECT_EQ(compile_counts(warm).cached, first.compiled - 1) << "NVRTC's try at rejected.cu is a remembered verdict\n"
                                                             << warm.err;
  EXPECT_EQ(read_bytes(m_dir.path() / "outside-b/travel.kiln"), read_bytes(a / "b/travel.kiln"))
      << "the package records <build>/gen/config.h";
  EXPECT_TRUE(says(warm, (m_dir.path() / "outside-b/gen/config.h").string() + ":3:")) << warm.err;
  EXPECT_FALSE(says(warm, (a / "b/gen/config.h").string())) << warm.err;

  // --build-dir names the build directory when the output lies elsewhere (CMake passes its build tree).
  generate_header(m_dir.path() / "third-build");
  const RunResult named = build("second/travel/kiln.toml", "packages/travel.kiln", {"--build-dir", "third-build"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(compile_counts(named).compiled, 0) << named.err;
  EXPECT_EQ(read_bytes(m_dir.path() / "packages/travel.kiln"), read_bytes(a / "b/travel.kiln"));

  // The generated header is checked where the build directory is now.
  write_text(m_dir.path() / "third-build/gen/config.h", "#pragma once\n__device__ inline float configured_scale(float x) { return x; }\n");
  const RunResult regenerated = build("second/travel/kiln.toml", "packages/travel.kiln", {"--build-dir", "third-build"});
  ASSERT_EQ(regenerated.exit_code, 0) << regenerated.err;
  EXPECT_EQ(compile_counts(regenerated).compiled, 2) << "generated.cu for each target\n" << regenerated.err;
}

TEST_F(BuildTravel, AHeaderRestoredToEarlierContentHits) {
  const fs::path project = m_dir.copy_project("travel", "a/travel");
  const RunResult cold = build("a/travel/kiln.toml", "out/travel.kiln");
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  const std::vector<std::byte> package = read_bytes(m_dir.path() / "out/travel.kiln");
  const std::string header = read_text(project / "include/common.cuh");
  write_text(project / "include/common.cuh", header + "// edited\n");
  const RunResult edited = build("a/travel/kiln.toml", "out/travel.kiln");
  ASSERT_EQ(edited.exit_code, 0) << edited.err;
  EXPECT_EQ(compile_counts(edited).compiled, 4) << "plain.cu and host.cu, for each target\n" << edited.err;
  write_text(project / "include/common.cuh", header);
  const RunResult restored = build("a/travel/kiln.toml", "out/travel.kiln");
  ASSERT_EQ(restored.exit_code, 0) << restored.err;
  EXPECT_EQ(compile_counts(restored).compiled, 0) << "the first header set is kept beside the second\n" << restored.err;
  EXPECT_EQ(read_bytes(m_dir.path() / "out/travel.kiln"), package);
}

}  // namespace
}  // namespace kiln::test
