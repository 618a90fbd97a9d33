// Precompiled preambles for the scan (build/preamble_sharing.hpp): kernel sources that start with the
// same #include lines, in one directory, share one PCH for their device parse. What the scan finds
// must not change: `kiln scan --json` prints the same bytes with KILN_SCAN_PCH=0, and a build
// writes the same package, for shared headers that hold kernel templates, a __device__ variable, a
// branch for sm_100 (a warning), host code with cuda_runtime.h (which makes the scan parse the host
// side too), a header found through a relative include directory (spelled as the preprocessor
// spelled it, not as the PCH records it) and a header without an include guard.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class ScanPreamble : public ::testing::Test {
protected:
  void SetUp() override {
    m_project = m_dir.path() / "project";
    fs::create_directories(m_project / "include");
    fs::create_directories(m_project / "sub");
    write_text(m_project / "include" / "shared.cuh",
               "#pragma once\n#include <cuda/std/cstdint>\n#include \"unguarded.cuh\"\n"
               "template <typename T> __global__ void fill(T* p) { *p = T(1); }\n"
               "__device__ int counter;\n"
               "#if __CUDA_ARCH__ >= 1000\n__global__ void blackwell_only() {}\n#endif\n");
    write_text(m_project / "include" / "unguarded.cuh", "struct Plain { int x; };\n");
    write_text(m_project / "include" / "host.cuh",
               "#pragma once\n#include <cuda_runtime.h>\n"
               "template <typename T> __global__ void scale(T* p) { *p = *p * 2; }\n"
               "inline void run(float* p) { scale<float><<<1, 1>>>(p); }\n");
    std::string manifest = "name = \"preamble\"\ntargets = [\"sm_90\"]\ninclude_dirs = [\"include\"]\n";
    const auto add = [&](const std::string& path, const std::string& text) {
      write_text(m_project / path, text);
      m_sources.push_back(path);
      manifest += "\n[[source]]\npath = \"" + path + "\"\n";
    };
    add("a1.cu", "#include \"shared.cuh\"\n\ntemplate __global__ void fill<int>(int*);\n");
    add("a2.cu", "#include \"shared.cuh\"\n\ntemplate __global__ void fill<float>(float*);\n"
                 "void launch(short* p) { fill<short><<<1, 1>>>(p); }\n");
    add("a3.cu", "#include \"shared.cuh\"\n\n// comments and code after the shared lines\n"
                 "template __global__ void fill<double>(double*);\n");
    add("h1.cu", "#include \"host.cuh\"\nvoid go(double* p) { scale<double><<<1, 1>>>(p); }\n");
    add("h2.cu", "#include \"host.cuh\"\nvoid go(int* p) { scale<int><<<1, 1>>>(p); }\n");
    // The same line in another directory: a group of its own (its quoted includes search there).
    add("sub/b1.cu", "#include \"shared.cuh\"\n\ntemplate __global__ void fill<char>(char*);\n");
    write_text(m_project / "kiln.toml", manifest);
  }

  RunResult scan(bool shared) {
    std::vector<std::string> args = {"scan", "--json", "-I", "include"};
    args.insert(args.end(), m_sources.begin(), m_sources.end());
    std::vector<std::string> env;
    if (!shared) env.push_back("KILN_SCAN_PCH=0");
    return run_kiln(args, m_project, env);
  }

  // With a host source, whose requests could name any kernel, every kernel source is scanned: none
  // is left to nvcc's image (docs/scan.md), so the host-code sources go through their preamble too.
  RunResult build(const std::string& output, bool shared) {
    std::vector<std::string> env = {"KILN_CACHE_DIR=" + (m_dir.path() / ("cache-" + output)).string()};
    if (!shared) env.push_back("KILN_SCAN_PCH=0");
    write_text(m_project / "app.cpp", "int main() { return 0; }\n");
    return run_kiln({"build", "-v", "-j", "2", "-o", output, "--host-source", "app.cpp"}, m_project, env);
  }

  ScratchDir m_dir;
  fs::path m_project;
  std::vector<std::string> m_sources;
};

TEST_F(ScanPreamble, WhatTheScanFindsIsTheSameThroughASharedPreamble) {
  const RunResult plain = scan(false);
  const RunResult shared = scan(true);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_EQ(shared.out, plain.out);
  EXPECT_EQ(shared.err, plain.err);
  // The findings the shared headers make, so that equal outputs are not equally empty.
  for (const char* expected : {"fill<int>", "fill<double>", "fill<short>", "scale<double>", "\"counter\"", "include/shared.cuh",
                               "include/unguarded.cuh", "has_host_code\": true"})
    EXPECT_NE(plain.out.find(expected), std::string::npos) << expected << "\n" << plain.out;
  EXPECT_EQ(plain.out.find("/include/shared.cuh"), std::string::npos) << "spelled as found, not absolute";
  EXPECT_NE(plain.err.find("sm_100 or later"), std::string::npos) << plain.err;
}

TEST_F(ScanPreamble, ABuildSharesOnePreamblePerGroupAndWritesTheSameBytes) {
  const RunResult plain = build("plain.kiln", false);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.err.find("shared preamble"), std::string::npos) << plain.err;
  const RunResult shared = build("shared.kiln", true);
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  // a1-a3 and h1-h2: two groups; sub/b1.cu is alone in its directory.
  EXPECT_NE(shared.err.find("7 scanned (5 through 2 shared preambles)"), std::string::npos) << shared.err;
  EXPECT_EQ(read_bytes(m_project / "shared.kiln"), read_bytes(m_project / "plain.kiln"));
  // Nothing is left of the preambles.
  for (const auto& entry : fs::recursive_directory_iterator(m_project))
    EXPECT_EQ(entry.path().filename().string().find("preamble"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace kiln::test
