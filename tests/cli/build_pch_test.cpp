// Shared precompiled headers (compile/shared_pch.hpp) end to end: sources that start with the same
// includes share one PCH per target, with -j1 (in this process) and -j2 (a worker per batch); the
// package, its carried headers and the depfile's inputs are the bytes KILN_NVRTC_PCH=0 builds, and
// NVRTC's PCH lines and warnings never reach the user.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class BuildPch : public ::testing::Test {
protected:
  void SetUp() override {
    m_project = m_dir.path() / "project";
    fs::create_directories(m_project / "include");
    write_text(m_project / "include" / "common.cuh",
               "#pragma once\n#include <cuda/std/cstdint>\n#include <cuda/std/limits>\n"
               "template <typename T> __device__ T twice(T v) { return v + v; }\n");
    std::string manifest = "name = \"pch\"\ntargets = [\"sm_80\", \"sm_90\"]\ninclude_dirs = [\"include\"]\n"
                           "carry_sources = true\n";
    for (const char* unit : {"one", "two", "three"}) {
      write_text(m_project / (std::string(unit) + ".cu"),
                 std::string("// ") + unit + "\n#include \"common.cuh\"\n\n"
                 "template <typename T> __global__ void " + unit + "(T* data) { data[0] = twice(data[0]); }\n"
                 "template __global__ void " + unit + "<int>(int*);\n");
      manifest += std::string("\n[[source]]\npath = \"") + unit + ".cu\"\n";
    }
    // A source that starts otherwise: a batch of its own, no PCH.
    write_text(m_project / "alone.cu", "__global__ void alone(int* p) { *p = 1; }\n");
    manifest += "\n[[source]]\npath = \"alone.cu\"\n";
    write_text(m_project / "kiln.toml", manifest);
  }

  RunResult build(const std::string& output, const std::string& jobs, bool pch) {
    std::vector<std::string> env = {"KILN_CACHE_DIR=" + (m_dir.path() / ("cache-" + output)).string()};
    if (!pch) env.push_back("KILN_NVRTC_PCH=0");
    return run_kiln({"build", "-v", "-j", jobs, "-o", output}, m_project, env);
  }

  static std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }

  ScratchDir m_dir;
  fs::path m_project;
};

TEST_F(BuildPch, SourcesThatStartAlikeShareOnePchPerTargetAndBuildTheSameBytes) {
  const RunResult plain = build("plain.kiln", "2", false);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(count(plain.err, "shared PCH"), 0u) << plain.err;
  for (const char* jobs : {"1", "2"}) {
    const std::string output = std::string("pch-j") + jobs + ".kiln";
    const RunResult shared = build(output, jobs, true);
    ASSERT_EQ(shared.exit_code, 0) << shared.err;
    // Per target, the first of one.cu, two.cu, three.cu makes the PCH and the other two use it.
    EXPECT_EQ(count(shared.err, "shared PCH"), 4u) << jobs << ": " << shared.err;
    EXPECT_EQ(shared.err.find("precompiled header"), std::string::npos) << shared.err;
    EXPECT_EQ(shared.err.find("#629"), std::string::npos) << shared.err;
    EXPECT_EQ(shared.err.find("warning"), std::string::npos) << shared.err;
    // The carried headers are in the package: the same bytes means the same headers.
    EXPECT_EQ(read_bytes(m_project / output), read_bytes(m_project / "plain.kiln")) << jobs;
    const auto inputs = [](const std::string& depfile) { return depfile.substr(depfile.find('\n')); };
    EXPECT_EQ(inputs(read_text(m_project / (output + ".d"))), inputs(read_text(m_project / "plain.kiln.d"))) << jobs;
  }
}

TEST_F(BuildPch, ACompileErrorInTheFirstOfABatchLeavesTheOthersToCompileAlone) {
  write_text(m_project / "one.cu", "// one\n#include \"common.cuh\"\n\n__global__ void one(int* p) { *p = undeclared; }\n");
  const RunResult r = build("broken.kiln", "2", true);
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("one.cu:4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("identifier \"undeclared\" is undefined"), std::string::npos) << r.err;
  EXPECT_EQ(count(r.err, "shared PCH"), 0u) << r.err;   // no PCH was made, so none was used
  EXPECT_EQ(count(r.err, "FAILED"), 2u) << r.err;       // one.cu for each target, nothing else
}

}  // namespace
}  // namespace kiln::test
