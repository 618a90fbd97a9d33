// kiln build on real sources: the example builds, builds are reproducible (also from a copy of the
// tree elsewhere and across -j), header changes reach the package and the depfile.
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

TEST(Build, BundledExampleBuildsForEveryDefaultTargetAndVerifies) {
  ScratchDir dir;
  const RunResult build = run_kiln({"build", (example_dir("saxpy") / "kiln.toml").string(), "-o", "saxpy.kiln", "--summary"}, dir.path());
  ASSERT_EQ(build.exit_code, 0) << build.err;
  EXPECT_NE(build.err.find("wrote saxpy.kiln: 7 kernels, 2 units x 13 targets"), std::string::npos) << build.err;

  const RunResult verify = run_kiln({"verify", "saxpy.kiln"}, dir.path());
  EXPECT_EQ(verify.exit_code, 0) << verify.err;

  const RunResult inspect = run_kiln({"inspect", "saxpy.kiln", "--json"}, dir.path());
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const nlohmann::json report = nlohmann::json::parse(inspect.out);
  EXPECT_EQ(report["targets"].size(), 13u);
  EXPECT_EQ(report["targets"].back(), "compute_75");
  EXPECT_EQ(report["kernels"].size(), 7u);
  ASSERT_EQ(report["variables"].size(), 1u);
  EXPECT_EQ(report["variables"][0]["name"], "block_sum_bias");
  EXPECT_EQ(report["variables"][0]["size"], 4);
  EXPECT_EQ(report["variables"][0]["kind"], "constant");
}

TEST(Build, TwoBuildsAreByteIdentical) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");
  ASSERT_EQ(run_kiln({"build", "-o", "../one.kiln"}, project).exit_code, 0);
  ASSERT_EQ(run_kiln({"build", "-o", "../two.kiln"}, project).exit_code, 0);
  EXPECT_EQ(read_bytes(dir.path() / "one.kiln"), read_bytes(dir.path() / "two.kiln"));
}

TEST(Build, ACopyOfTheTreeElsewhereBuildsTheSameBytes) {
  ScratchDir dir;
  const fs::path first = dir.copy_project("basic", "a/project");
  const fs::path second = dir.copy_project("basic", "somewhere/much/deeper/other-name");
  ASSERT_EQ(run_kiln({"build", "-o", (dir.path() / "first.kiln").string()}, first).exit_code, 0);
  // Built from outside the tree this time: the current directory must not matter either.
  ASSERT_EQ(run_kiln({"build", (second / "kiln.toml").string(), "-o", "second.kiln"}, dir.path()).exit_code, 0);
  const std::vector<std::byte> a = read_bytes(dir.path() / "first.kiln");
  EXPECT_EQ(a, read_bytes(dir.path() / "second.kiln"));
  const std::string text(reinterpret_cast<const char*>(a.data()), a.size());
  EXPECT_EQ(text.find(dir.path().string()), std::string::npos) << "an absolute path leaked into the package";
}

TEST(Build, WorkerProcessesAndInProcessCompilesAgree) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");
  ASSERT_EQ(run_kiln({"build", "-j", "1", "-o", "../serial.kiln"}, project).exit_code, 0);
  ASSERT_EQ(run_kiln({"build", "-j", "4", "-o", "../parallel.kiln"}, project).exit_code, 0);
  EXPECT_EQ(read_bytes(dir.path() / "serial.kiln"), read_bytes(dir.path() / "parallel.kiln"));
}

TEST(Build, HeaderChangeChangesThePackageAndTheDepfileListsIt) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");
  ASSERT_EQ(run_kiln({"build", "-o", "../before.kiln"}, project).exit_code, 0);
  const std::string depfile = read_text(dir.path() / "before.kiln.d");
  EXPECT_EQ(depfile.rfind("../before.kiln:", 0), 0u) << depfile;
  for (const char* input : {"kiln.toml", "kernels/ops.cu", "kernels/more.cu", "kernels/local.cuh",
                            "include/ops_common.cuh"})
    EXPECT_NE(depfile.find((fs::canonical(project) / input).string()), std::string::npos) << input << "\n" << depfile;
  EXPECT_NE(depfile.find("/include/cuda"), std::string::npos) << "toolkit headers NVRTC read are listed too";

  write_text(project / "include/ops_common.cuh",
             "#pragma once\n__device__ inline float twice(float x) { return x + x + 1.0f; }\n");
  ASSERT_EQ(run_kiln({"build", "-o", "../after.kiln"}, project).exit_code, 0);
  EXPECT_NE(read_bytes(dir.path() / "before.kiln"), read_bytes(dir.path() / "after.kiln"));
}

TEST(Build, NamesAsWrittenCanonicalAndLoweredAllFindTheKernel) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");
  ASSERT_EQ(run_kiln({"build", "-o", "../basic.kiln"}, project).exit_code, 0);
  const std::vector<std::byte> bytes = read_bytes(dir.path() / "basic.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  // kiln.toml writes "scale< int >"; all spellings of the same expression are one key.
  const auto scale_int = reader.find_kernel("scale<int>");
  ASSERT_TRUE(scale_int);
  EXPECT_EQ(reader.find_kernel("scale< int >"), scale_int);
  EXPECT_EQ(reader.find_kernel("_Z5scaleIiEvPT_S0_i"), scale_int);
  EXPECT_EQ(reader.kernel(*scale_int).canonical_name, "scale<int>");
  EXPECT_TRUE(reader.find_kernel("add_one"));
  EXPECT_TRUE(reader.find_kernel("fill"));
  EXPECT_TRUE(reader.find_kernel("(anonymous namespace)::hidden"));
  EXPECT_FALSE(reader.find_kernel("scale<double>"));
  // Parameters come from the cubin: add_one(int*, int).
  const format::KernelView add_one = reader.kernel(*reader.find_kernel("add_one"));
  ASSERT_EQ(add_one.param_count, 2u);
  EXPECT_EQ(add_one.param(0).size, 8u);
  EXPECT_EQ(add_one.param(1).offset, 8u);
  EXPECT_EQ(add_one.param(1).size, 4u);
  const auto lookup = reader.find_variable("lookup");
  ASSERT_TRUE(lookup);
  EXPECT_EQ(reader.variable(*lookup).size, 64u);
  EXPECT_EQ(reader.variable(*lookup).kind, format::VariableKind::device);
}

TEST(Build, OneTemplateInstantiationInTwoUnitsIsStoredOnce) {
  ScratchDir dir;
  const fs::path p = dir.path() / "shared";
  write_text(p / "shared.cuh", "template <typename T> __global__ void twice(T* x) { x[0] = x[0] + x[0]; }\n");
  write_text(p / "a.cu", "#include \"shared.cuh\"\nextern \"C\" __global__ void only_a(int* x) { x[0] = 1; }\n");
  write_text(p / "b.cu", "#include \"shared.cuh\"\nextern \"C\" __global__ void only_b(int* x) { x[0] = 2; }\n");
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\n"
                              "[[source]]\npath = \"a.cu\"\ninstantiate = [\"twice<int>\"]\n"
                              "[[source]]\npath = \"b.cu\"\ninstantiate = [\"twice<int>\"]\n");
  const RunResult build = run_kiln({"build", "-o", "shared.kiln"}, p);
  ASSERT_EQ(build.exit_code, 0) << build.err;
  format::PackageReader reader;
  const std::vector<std::byte> bytes = read_bytes(p / "shared.kiln");
  ASSERT_TRUE(reader.open(bytes));
  EXPECT_EQ(reader.kernel_count(), 3u);
  const auto twice = reader.find_kernel("twice<int>");
  ASSERT_TRUE(twice);
  EXPECT_EQ(reader.unit(reader.kernel(*twice).unit).source, "a.cu");
}

}  // namespace
}  // namespace kiln::test
