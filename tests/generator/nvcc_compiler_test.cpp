// The nvcc path without running nvcc: its command line, the source copy that adds instantiations,
// depfile parsing, and what becomes of nvcc's messages and outputs (through a stand-in runner).
#include "compile/nvcc_compiler.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <random>

namespace kiln::compile {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

CompileJob job() {
  CompileJob j;
  j.root = "/p";
  j.source = "kernels/a.cu";
  j.display_prefix = "p/";
  j.target = "sm_80";
  j.compiler = Compiler::nvcc;
  j.nvcc = "/opt/cuda/bin/nvcc";
  j.nvcc_options = {"-Iinclude", "-DN=4"};
  j.work_dir = "/s/nvcc-0";
  return j;
}

TEST(NvccArguments, LtoIrForNvJitLinkAndReproducibleNames) {
  CompileJob j = job();
  EXPECT_EQ(nvcc_arguments(j, "kernels/a.cu", "/s/o.fatbin", "/s/o.d"),
            (Strings{"/opt/cuda/bin/nvcc", "-fatbin", "-dc", "-gencode", "arch=compute_80,code=lto_80", "-o",
                     "/s/o.fatbin", "-MD", "-MF", "/s/o.d", "-frandom-seed=kernels/a.cu", "-Xcicc",
                     "--orig_src_path_name=kernels/a.cu", "-Iinclude", "-DN=4", "kernels/a.cu"}));
  // Variants keep their suffix; PTX targets compile to the LTO-IR their link turns into PTX.
  j.target = "sm_90a";
  EXPECT_EQ(nvcc_arguments(j, "kernels/a.cu", "/s/o.fatbin", "/s/o.d")[4], "arch=compute_90a,code=lto_90a");
  j.target = "compute_90a";
  EXPECT_EQ(nvcc_arguments(j, "kernels/a.cu", "/s/o.fatbin", "/s/o.d")[4], "arch=compute_90a,code=lto_90a");
  // Family PTX comes from nvcc directly (nvJitLink would drop the suffix).
  j.target = "compute_100f";
  const Strings ptx = nvcc_arguments(j, "/s/src/kernels/a.cu", "/s/o.ptx", "/s/o.d");
  EXPECT_EQ(ptx[1], "-ptx");
  EXPECT_EQ(ptx[2], "-arch=compute_100f");
  // The copy finds the source's neighbours through a relative -iquote (keeps __FILE__ relative).
  EXPECT_NE(std::find(ptx.begin(), ptx.end(), "-iquote,kernels"), ptx.end());
  EXPECT_EQ(ptx.back(), "/s/src/kernels/a.cu");
}

TEST(InstantiationWrapper, TheSourceThenATableOfAddressesWithTheirOrigins) {
  CompileJob j = job();
  EXPECT_EQ(instantiation_wrapper("int x;", j), "#line 1 \"kernels/a.cu\"\nint x;");
  j.name_expressions = {"scale<float>", "ns::k<int, 2>"};
  j.expression_origins = {{"kiln.toml", 7}, {"src/app.cpp", 12}};
  EXPECT_EQ(instantiation_wrapper("int x;", j),
            "#line 1 \"kernels/a.cu\"\nint x;\n"
            "__attribute__((unused)) static void* const __kiln_instantiations[] = {\n"
            "#line 7 \"kiln.toml\"\n  (void*)&scale<float>,\n"
            "#line 12 \"src/app.cpp\"\n  (void*)&ns::k<int, 2>,\n};\n");
}

TEST(DepfilePrerequisites, EscapesAndContinuations) {
  EXPECT_EQ(depfile_prerequisites("/s/o.cubin : /s/src/a.cu \\\n    /p/my\\ dir/h.cuh \\\n  /usr/include/x.h\n"),
            (Strings{"/s/src/a.cu", "/p/my dir/h.cuh", "/usr/include/x.h"}));
  EXPECT_EQ(depfile_prerequisites("o.cubin: a.cu b$$.h\n"), (Strings{"a.cu", "b$.h"}));
}

// Stands in for nvcc: remembers the command line, writes what it is told to, prints `output`.
class FakeNvcc final : public ChildRunner {
public:
  Result<ChildOutput> run(const std::vector<std::string>& argv) override {
    m_argv = argv;
    const auto at = [&](const std::string& flag) { return *(std::find(argv.begin(), argv.end(), flag) + 1); };
    if (m_exit_code == 0) {
      std::ofstream(at("-o"), std::ios::binary) << "IMAGE";
      std::ofstream(at("-MF")) << at("-o") << " : " << argv.back() << " \\\n " << m_headers << "\n";
    }
    return ChildOutput{m_exit_code, m_output};
  }
  Strings m_argv;
  int m_exit_code = 0;
  std::string m_output;
  std::string m_headers;
};

class NvccCompile : public ::testing::Test {
protected:
  NvccCompile() {
    m_dir = fs::temp_directory_path() / ("kiln-nvcc-test-" + std::to_string(getpid()) + "-" +
                                         std::to_string(std::random_device{}()));
    fs::create_directories(m_dir / "p/kernels");
    fs::create_directories(m_dir / "cuda/bin");
    std::ofstream(m_dir / "cuda/bin/nvcc") << "#!/bin/sh\n";
    std::ofstream(m_dir / "p/kernels/a.cu") << "__global__ void k() {}\n";
    m_job = job();
    m_job.root = m_dir / "p";
    m_job.nvcc = m_dir / "cuda/bin/nvcc";
    m_job.work_dir = m_dir / "work";
    m_job.nvcc_options = {"-I" + (m_dir / "cuda/include").string()};
    m_previous = fs::current_path();
    fs::current_path(m_job.root);  // as in a worker
  }
  ~NvccCompile() override {
    fs::current_path(m_previous);
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  fs::path m_dir, m_previous;
  CompileJob m_job;
  FakeNvcc m_nvcc;
};

TEST_F(NvccCompile, ErrorsPointAtTheSourceFromTheUsersDirectory) {
  m_job.name_expressions = {"k<int>"};
  m_job.expression_origins = {{"kiln.toml", 4}};
  m_nvcc.m_exit_code = 1;
  const std::string copy = (m_dir / "work/src/kernels/a.cu").string();
  m_nvcc.m_output = "kernels/a.cu(3): error: identifier \"y\" is undefined\n"
                    "kiln.toml(4): error: no instance of function template \"k\" matches\n"
                    "In file included from kernels/a.cu:1:\n"
                    "kernels/h.cuh:2:10: fatal error: nope.h: No such file or directory\n"
                    "2 errors detected in the compilation of \"" + copy + "\".\n";
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.log, "p/kernels/a.cu:3: error: identifier \"y\" is undefined\n"
                     "p/kiln.toml:4: error: no instance of function template \"k\" matches\n"
                     "In file included from p/kernels/a.cu:1:\n"
                     "p/kernels/h.cuh:2:10: fatal error: nope.h: No such file or directory\n"
                     "2 errors detected in the compilation of \"p/kernels/a.cu\".");
  EXPECT_EQ(m_nvcc.m_argv.back(), copy) << "name expressions compile through the copy";
}

TEST_F(NvccCompile, ImageAndTheProjectsOwnHeaders) {
  m_job.target = "compute_100f";   // nvcc's own PTX: no link step, which a stand-in cannot feed
  m_nvcc.m_headers = (m_dir / "p/kernels/local.cuh").string() + " /usr/include/stdio.h " +
                     (m_dir / "cuda/bin/../include/cuda_runtime.h").string();
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.image.size(), 6u) << "the PTX with its NUL";
  EXPECT_EQ(m_nvcc.m_argv.back(), "kernels/a.cu") << "without name expressions the source itself compiles";
  EXPECT_EQ(out.headers, (Strings{(m_dir / "p/kernels/local.cuh").string(), (m_dir / "cuda/include/cuda_runtime.h").string()}));
  EXPECT_FALSE(fs::exists(m_job.work_dir)) << "the work directory is cleaned up";
}

TEST_F(NvccCompile, WhatIsNotLtoIrFailsTheLinkNamingTheSourceAndTarget) {
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("p/kernels/a.cu: error: linking for sm_80 failed"), std::string::npos) << out.log;
}

TEST_F(NvccCompile, MissingNvccSaysWhereItLooked) {
  m_job.nvcc = m_dir / "nowhere/nvcc";
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("p/kernels/a.cu: error: nvcc compiles this source, and there is no nvcc at"),
            std::string::npos)
      << out.log;
}

}  // namespace
}  // namespace kiln::compile
