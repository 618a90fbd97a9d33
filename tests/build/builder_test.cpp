// The build as a library (build/builder.hpp), driven without the command line: what it writes, what
// it tells its listener, and how it fails, each failure with nothing written.
#include "build/builder.hpp"

#include "shard/shard_plan.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <fstream>
#include <iterator>
#include <sstream>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

// Everything the builder says, in order, as "<kind>: <text>".
class RecordingEvents final : public build::BuildEvents {
public:
  void warning(build::WarningSource, const std::string& text) override { said.push_back("warning: " + text); }
  void error(const std::string& text) override { said.push_back("error: " + text); }
  void detail(const std::string& text) override { said.push_back("detail: " + text); }
  void step(std::size_t, std::size_t, const std::string& what) override { said.push_back("step: " + what); }
  void compiled(std::size_t, std::size_t, const compile::CompileJob& job, const compile::CompileOutput& out,
                bool) override {
    said.push_back("compiled: " + job.target + " " + job.source + (out.ok ? "" : " FAILED"));
  }
  void steps_done() override {}

  bool any(const std::string& kind, const std::string& part) const {
    for (const std::string& line : said)
      if (line.starts_with(kind + ": ") && line.find(part) != std::string::npos) return true;
    return false;
  }
  std::string all() const {
    std::string out;
    for (const std::string& line : said) out += line + "\n";
    return out;
  }
  std::vector<std::string> said;
};

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class Builder : public ::testing::Test {
protected:
  Builder() {
    std::string name = (fs::temp_directory_path() / "kiln-builder-XXXXXX").string();
    m_dir = mkdtemp(name.data());
    write_text(m_dir / "p/kernels/add.cu", "extern \"C\" __global__ void add(float* x) { x[0] += 1; }\n");
    write_text(m_dir / "p/kernels/scale.cu",
               "template <int N> __global__ void scale(float* x) { x[0] *= N; }\n"
               "template __global__ void scale<2>(float*);\n");
    manifest("");
  }
  ~Builder() override { fs::remove_all(m_dir); }

  void manifest(const std::string& more) {
    write_text(m_dir / "p/kiln.toml", "name = \"p\"\ntargets = [\"sm_90\"]\n[[source]]\npath = \"kernels/add.cu\"\n"
                                      "[[source]]\npath = \"kernels/scale.cu\"\n" + more);
  }

  build::BuildRequest request(const std::string& output) const {
    build::BuildRequest r;
    r.manifest = m_dir / "p/kiln.toml";
    r.output = m_dir / "out" / output;
    r.cache_dir = m_dir / "cache";
    return r;
  }

  build::BuildResult run(const build::BuildRequest& r) { return build::Builder(m_events).run(r); }

  fs::path m_dir;
  RecordingEvents m_events;
};

TEST_F(Builder, WritesThePackageAndItsDepfileAndSaysWhatItCompiled) {
  fs::create_directories(m_dir / "out");
  const build::BuildResult first = run(request("p.kiln"));
  ASSERT_TRUE(first.ok()) << first.error << "\n" << m_events.all();
  EXPECT_EQ(first.output, m_dir / "out/p.kiln");
  EXPECT_EQ(first.depfile, m_dir / "out/p.kiln.d");
  EXPECT_TRUE(fs::exists(first.output));
  EXPECT_NE(read_text(first.depfile).find("add.cu"), std::string::npos);
  EXPECT_EQ(first.kernels, 2u);
  EXPECT_EQ(first.bytes, fs::file_size(first.output));
  EXPECT_EQ(first.compiled, 2u);
  EXPECT_EQ(first.cached, 0u);
  EXPECT_EQ(first.plan.units.size(), 2u);
  EXPECT_EQ(first.outputs.size(), first.plan.jobs.size());
  EXPECT_TRUE(first.warnings.empty());
  EXPECT_TRUE(m_events.any("compiled", "kernels/scale.cu")) << m_events.all();
  EXPECT_TRUE(m_events.any("detail", "compile: 0 cached, 2 compiled")) << m_events.all();

  m_events.said.clear();
  const build::BuildResult second = run(request("q.kiln"));
  ASSERT_TRUE(second.ok()) << second.error;
  EXPECT_EQ(second.cached, 2u);
  EXPECT_EQ(second.compiled, 0u);
  EXPECT_EQ(read_text(second.output), read_text(first.output));
}

TEST_F(Builder, AWarningIsToldAndKeptInTheResult) {
  write_text(m_dir / "p/kernels/empty.cu", "// nothing here yet\n");
  manifest("[[source]]\npath = \"kernels/empty.cu\"\n");
  fs::create_directories(m_dir / "out");
  const build::BuildResult result = run(request("p.kiln"));
  ASSERT_TRUE(result.ok()) << result.error;
  ASSERT_EQ(result.warnings.size(), 1u) << m_events.all();
  EXPECT_NE(result.warnings[0].find("kernels/empty.cu: warning: this source defines no kernel"), std::string::npos)
      << result.warnings[0];
  EXPECT_TRUE(m_events.any("warning", "empty.cu")) << m_events.all();
}

TEST_F(Builder, AMissingManifestIsBadInput) {
  build::BuildRequest r = request("p.kiln");
  r.manifest = m_dir / "nowhere/kiln.toml";
  const build::BuildResult result = run(r);
  EXPECT_EQ(result.failure, build::BuildFailure::bad_input);
  EXPECT_NE(result.error.find("nowhere/kiln.toml"), std::string::npos) << result.error;
  EXPECT_FALSE(fs::exists(m_dir / "out"));
}

TEST_F(Builder, AnOutputThatIsAnInputIsRefusedAndTheInputKept) {
  const std::string source = read_text(m_dir / "p/kernels/add.cu");
  build::BuildRequest r = request("p.kiln");
  r.output = m_dir / "p/kernels/add.cu";
  const build::BuildResult result = run(r);
  EXPECT_EQ(result.failure, build::BuildFailure::usage);
  EXPECT_NE(result.error.find("add.cu"), std::string::npos) << result.error;
  EXPECT_EQ(read_text(m_dir / "p/kernels/add.cu"), source);
}

TEST_F(Builder, AFailedCompileIsToldWithItsTargetsAndNothingIsWritten) {
  write_text(m_dir / "p/kernels/add.cu", "extern \"C\" __global__ void add(float* x) { x[0] += undeclared; }\n");
  fs::create_directories(m_dir / "out");
  const build::BuildResult result = run(request("p.kiln"));
  EXPECT_EQ(result.failure, build::BuildFailure::failed);
  EXPECT_NE(result.error.find("kernels/add.cu for sm_90); no package written"), std::string::npos)
      << result.error;
  EXPECT_NE(result.error.find("no package written"), std::string::npos);
  EXPECT_TRUE(m_events.any("error", "undeclared")) << m_events.all();
  EXPECT_TRUE(m_events.any("error", "note: target sm_90")) << m_events.all();
  EXPECT_FALSE(fs::exists(m_dir / "out/p.kiln"));
  EXPECT_FALSE(fs::exists(m_dir / "out/p.kiln.d"));
}

TEST_F(Builder, StrictTurnsAShortAnswerIntoAFailure) {
  manifest("instantiate = [\"scale<3>\", \"missing<1>\"]\n");
  fs::create_directories(m_dir / "out");
  build::BuildRequest r = request("p.kiln");
  r.strict = true;
  const build::BuildResult result = run(r);
  EXPECT_EQ(result.failure, build::BuildFailure::failed) << result.error;
  EXPECT_FALSE(fs::exists(m_dir / "out/p.kiln"));
}

TEST_F(Builder, ShardsMergedWriteThePackageTheWholeBuildWrites) {
  fs::create_directories(m_dir / "out");
  const build::BuildResult whole = run(request("whole.kiln"));
  ASSERT_TRUE(whole.ok()) << whole.error;

  std::vector<fs::path> parts;
  for (std::size_t i = 1; i <= 2; ++i) {
    build::BuildRequest r = request("part" + std::to_string(i) + ".kilnpart");
    r.cache_dir = m_dir / ("shard-cache-" + std::to_string(i));
    r.shard = shard::ShardSpec{i, 2};
    const build::BuildResult part = run(r);
    ASSERT_TRUE(part.ok()) << part.error;
    EXPECT_GE(part.part_images, 1u);
    parts.push_back(part.output);
  }
  build::BuildRequest merge = request("merged.kiln");
  merge.cache_dir = m_dir / "merge-cache";
  merge.parts = parts;
  const build::BuildResult merged = run(merge);
  ASSERT_TRUE(merged.ok()) << merged.error << "\n" << m_events.all();
  EXPECT_EQ(merged.compiled, 0u);
  EXPECT_EQ(read_text(merged.output), read_text(whole.output));
}

TEST_F(Builder, AMergeOfPartsThatDoNotMakeOneBuildIsBadInput) {
  write_text(m_dir / "out/junk.kilnpart", "not a part");
  build::BuildRequest merge = request("merged.kiln");
  merge.parts = {m_dir / "out/junk.kilnpart"};
  const build::BuildResult result = run(merge);
  EXPECT_EQ(result.failure, build::BuildFailure::bad_input);
  EXPECT_NE(result.error.find("junk.kilnpart"), std::string::npos) << result.error;
  EXPECT_FALSE(fs::exists(m_dir / "out/merged.kiln"));
}

}  // namespace
}  // namespace kiln::test
