// Shared precompiled headers (compile/shared_pch.hpp): which NVRTC jobs share one (same root,
// target, options and leading directives), how groups are cut into batches for the processes at
// hand, the directives NVRTC compares, and the headers a job that used a PCH reports.
#include "compile/shared_pch.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace kiln::compile {
namespace {

namespace fs = std::filesystem;
using Batches = std::vector<std::vector<std::size_t>>;

class SharedPch : public ::testing::Test {
protected:
  void SetUp() override {
    m_root = fs::temp_directory_path() / ("kiln-shared-pch-" + std::to_string(::getpid()));
    fs::create_directories(m_root);
    write("a.cu", "// A comment first\n#include \"common.cuh\"\n\n__global__ void a() {}\n");
    write("b.cu", "/* a block\n   comment */\n#include \"common.cuh\"\n__global__ void b() {}\n");
    write("c.cu", "#include \"common.cuh\"\n__global__ void c() {}\n");
    write("d.cu", "#include \"other.cuh\"\n__global__ void d() {}\n");
    write("e.cu", "__global__ void e() {}\n");
  }
  void TearDown() override { fs::remove_all(m_root); }

  void write(const std::string& name, const std::string& text) { std::ofstream(m_root / name) << text; }

  CompileJob job(const std::string& source, const std::string& target = "sm_90") const {
    CompileJob j;
    j.root = m_root;
    j.source = source;
    j.target = target;
    j.nvrtc_options = {"-Iinclude"};
    return j;
  }

  fs::path m_root;
};

TEST_F(SharedPch, JobsWithTheSameHeadersTargetAndOptionsShareABatch) {
  const std::vector<CompileJob> jobs = {job("a.cu"), job("d.cu"), job("b.cu"), job("c.cu"), job("e.cu")};
  // a, b and c start with the same directive; d with another; e with none.
  EXPECT_EQ(plan_shared_pch(jobs, 1, true), (Batches{{0, 2, 3}, {1}, {4}}));
}

TEST_F(SharedPch, AnotherTargetOptionsOrCompilerIsAnotherBatch) {
  std::vector<CompileJob> jobs = {job("a.cu"), job("b.cu", "sm_80"), job("c.cu"), job("a.cu", "sm_80")};
  EXPECT_EQ(plan_shared_pch(jobs, 1, true), (Batches{{0, 2}, {1, 3}}));
  jobs[2].nvrtc_options.push_back("-DFAST");
  EXPECT_EQ(plan_shared_pch(jobs, 1, true), (Batches{{1, 3}, {0}, {2}}));
  jobs[2].nvrtc_options.pop_back();
  jobs[2].compiler = Compiler::nvcc;   // nvcc makes no NVRTC PCH
  jobs[3].relocatable = true;          // a link group's member: compile_group runs it
  EXPECT_EQ(plan_shared_pch(jobs, 1, true), (Batches{{0}, {1}, {2}, {3}}));
}

TEST_F(SharedPch, DisabledEveryJobIsItsOwnBatchInOrder) {
  const std::vector<CompileJob> jobs = {job("a.cu"), job("b.cu"), job("c.cu")};
  EXPECT_EQ(plan_shared_pch(jobs, 2, false), (Batches{{0}, {1}, {2}}));
}

TEST_F(SharedPch, AGroupIsCutIntoItsShareOfTheProcessesNeverIntoBatchesOfOne) {
  std::vector<CompileJob> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back(job(i % 2 ? "a.cu" : "c.cu"));
  jobs.push_back(job("e.cu"));
  // 8 of 9 jobs share headers: with 4 processes, 4 batches of 2; with 16, still batches of 2.
  EXPECT_EQ(plan_shared_pch(jobs, 4, true), (Batches{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8}}));
  EXPECT_EQ(plan_shared_pch(jobs, 16, true).size(), 5u);
  // With 2 processes, 2 batches of 4; larger batches first.
  EXPECT_EQ(plan_shared_pch(jobs, 2, true), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}, {8}}));
}

TEST_F(SharedPch, AMissingSourceSharesNothing) {
  const std::vector<CompileJob> jobs = {job("missing.cu"), job("missing.cu")};
  EXPECT_EQ(plan_shared_pch(jobs, 1, true), (Batches{{0}, {1}}));
}

TEST(LeadingDirectives, AreTheDirectivesBeforeTheFirstLineOfCode) {
  EXPECT_EQ(leading_directives("#include <a>\n  #include \"b\"\n#define X 1\nint x;\n#include <c>\n"),
            "#include <a>\n#include \"b\"\n#define X 1\n");
  EXPECT_EQ(leading_directives("// c\n\n/* one\n two */\n/* inline */\n#pragma once\n__global__ void k();\n"),
            "#pragma once\n");
  EXPECT_EQ(leading_directives("__global__ void k() {}\n"), "");
  EXPECT_EQ(leading_directives(""), "");
  EXPECT_EQ(leading_directives("#include <a>\r\n"), "#include <a>\r\n");
}

TEST(WithSeedHeaders, AddsTheSeedsHeadersThatAreMissingFirst) {
  EXPECT_EQ(with_seed_headers({"cub.cuh", "common.cuh"}, {"own.cuh", "common.cuh"}),
            (std::vector<std::string>{"cub.cuh", "own.cuh", "common.cuh"}));
  EXPECT_EQ(with_seed_headers({}, {"own.cuh"}), std::vector<std::string>{"own.cuh"});
}

}  // namespace
}  // namespace kiln::compile
