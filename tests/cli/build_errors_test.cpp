// kiln build on broken input: each error names the file, line or kernel, the exit code says what
// kind of failure it was, and no package is written (a previous one stays untouched).
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;


// A one-source project in a scratch directory.
fs::path write_errors_project(const ScratchDir& dir, const std::string& manifest_extra, const std::string& source) {
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", "targets = [\"sm_80\", \"compute_80\"]\n[[source]]\npath = \"kernels/k.cu\"\n" + manifest_extra);
  write_text(p / "kernels/k.cu", source);
  return p;
}

const char* k_good_source = "template <typename T> __global__ void scale(T* x, T f) { x[0] *= f; }\n"
                            "__device__ float table[8];\n"
                            "extern \"C\" __global__ void use(float* x) { x[0] = table[0]; }\n";

TEST(BuildErrors, CompileErrorShowsPathAndLineFromTheCurrentDirectoryAndWritesNothing) {
  ScratchDir dir;
  // Only NVRTC sees the error (clang, which scans every source first, defines __clang__): this is
  // about how compile errors are shown. Scan errors: build_scan_test.cpp.
  const fs::path p = write_errors_project(dir, "", "extern \"C\" __global__ void k(int* x) {\n#ifndef __clang__\n"
                                            "  x[0] = undefined_name;\n#endif\n}\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, k_failed);
  // NVRTC prints no column; its caret under the echoed line gives it.
  EXPECT_NE(r.err.find("p/kernels/k.cu:3:10: error: identifier \"undefined_name\" is undefined"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("no package written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln"));
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln.d"));
  // The same message is shown once, not once per target.
  const std::string line = "p/kernels/k.cu:3:10: error";
  EXPECT_EQ(r.err.find(line), r.err.rfind(line)) << r.err;
}

// A typo fails the scan (clang) and the compile alike: the compiler's error is the one report, not a
// warning that the scan cannot read the source before it (docs/cli.md, "Diagnostics").
TEST(BuildErrors, ATypoInAKernelIsReportedOnceByItsCompiler) {
  ScratchDir dir;
  write_errors_project(dir, "", "extern \"C\" __global__ void k(int* x) {\n  x[0] = undefned_name;\n}\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("p/kernels/k.cu:2:10: error: identifier \"undefned_name\" is undefined"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("the scan cannot read"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("undeclared identifier"), std::string::npos) << "clang's error said too:\n" << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

// Another source that the scan cannot read but that compiles keeps its warning.
TEST(BuildErrors, AnUnreadableSourceThatCompilesKeepsItsWarningBesideAnotherSourcesError) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"a.cu\"\n[[source]]\npath = \"b.cu\"\n");
  // A template, so that the scan reads it (docs/scan.md: a device-only source with nothing a parse
  // would name is left to NVRTC's image unread).
  write_text(p / "a.cu", "#ifdef __clang__\n#error \"clang cannot read this file\"\n#endif\n"
                         "template <int N> __global__ void a(int* x) { x[0] = N; }\ntemplate __global__ void a<1>(int*);\n");
  write_text(p / "b.cu", "extern \"C\" __global__ void b(int* x) { x[0] = nope; }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("p/a.cu: warning: the scan cannot read this source"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("p/b.cu: warning: the scan cannot read"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("p/b.cu:1"), std::string::npos) << r.err;
}

TEST(BuildErrors, FailedBuildLeavesThePreviousPackageAndNoTemporaryFiles) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "", k_good_source);
  ASSERT_EQ(run_kiln({"build", "-o", "out.kiln"}, p).exit_code, 0);
  const std::vector<std::byte> before = read_bytes(p / "out.kiln");
  write_text(p / "kernels/k.cu", "this is not CUDA\n");
  EXPECT_EQ(run_kiln({"build", "-o", "out.kiln"}, p).exit_code, k_failed);
  EXPECT_EQ(read_bytes(p / "out.kiln"), before);
  for (const auto& entry : fs::directory_iterator(p))
    EXPECT_EQ(entry.path().filename().string().find(".out.kiln"), std::string::npos) << entry.path();
}

TEST(BuildErrors, InstantiationThatDoesNotCompileIsNamed) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "instantiate = [\"scale<NoSuchType>\"]\n", k_good_source);
  const RunResult r = run_kiln({"build"}, p);
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("NoSuchType"), std::string::npos) << r.err;
  // At the `instantiate` entry (line 4, the string at column 16), not the [[source]] line.
  EXPECT_NE(r.err.find("kiln.toml:4:23: error: identifier \"NoSuchType\" is undefined in 'scale<NoSuchType>'"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kiln.toml:4:17: note: an instantiation listed for kernels/k.cu"), std::string::npos) << r.err;
}

TEST(BuildErrors, ExpressionThatIsNotAKernelIsNamed) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "instantiate = [\"table\"]\n", k_good_source);
  const RunResult r = run_kiln({"build"}, p);
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("'table'"), std::string::npos) << r.err;
}

TEST(BuildErrors, UnknownVariableIsNamedWithItsManifestLine) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "variables = [\"table\", \"no_such_variable\"]\n", k_good_source);
  const RunResult r = run_kiln({"build"}, p);
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("no_such_variable"), std::string::npos) << r.err;
}

TEST(BuildErrors, OneKernelDefinedInTwoUnitsNamesBothSources) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "a.cu", "extern \"C\" __global__ void same(int* x) { x[0] = 1; }\n");
  write_text(p / "b.cu", "extern \"C\" __global__ void same(int* x) { x[0] = 2; }\n");
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"a.cu\"\n[[source]]\npath = \"b.cu\"\n");
  const RunResult r = run_kiln({"build"}, p);
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("defined in both a.cu and b.cu"), std::string::npos) << r.err;
}

TEST(BuildErrors, OneNameClaimedByTwoKernelsNamesBothSources) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "a.cu", "template <typename T> __global__ void k(T* x) { x[0] = 1; }\n");
  write_text(p / "b.cu", "template <typename T> __global__ void k(T* x, int n) { x[0] = n; }\n");
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"a.cu\"\ninstantiate = [\"k<float>\"]\n"
                              "[[source]]\npath = \"b.cu\"\ninstantiate = [\"k<float>\"]\n");
  const RunResult r = run_kiln({"build"}, p);
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("name 'k<float>' is claimed by different kernels"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(a.cu)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(b.cu)"), std::string::npos) << r.err;
}


TEST(BuildErrors, InvalidManifestIsBadInput) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "tragets = 3\n", k_good_source);
  const RunResult r = run_kiln({"build"}, p);
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("kiln.toml:4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tragets"), std::string::npos) << r.err;
}

TEST(BuildErrors, MissingManifestIsBadInput) {
  ScratchDir dir;
  const RunResult r = run_kiln({"build", "nowhere/kiln.toml"}, dir.path());
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("nowhere/kiln.toml"), std::string::npos) << r.err;
}

TEST(BuildErrors, TargetNvrtcDoesNotSupportIsBadInput) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "", k_good_source);
  write_text(p / "kiln.toml", "targets = [\"sm_101\"]\n[[source]]\npath = \"kernels/k.cu\"\n");
  const RunResult r = run_kiln({"build"}, p);
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("sm_101"), std::string::npos) << r.err;
}

TEST(BuildErrors, UnwritableOutputIsAnEnvironmentError) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "", k_good_source);
  const RunResult r = run_kiln({"build", "-o", "no/such/dir/out.kiln"}, p);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("no/such/dir"), std::string::npos) << r.err;
}

TEST(BuildErrors, ARelativeCudaPathIsRefusedNamingTheVariable) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "", k_good_source);
  // A toolkit under the working directory that a relative value would take.
  fs::create_directories(dir.path() / "cuda");
  fs::create_directory_symlink("/usr/local/cuda/include", dir.path() / "cuda" / "include");
  for (const char* variable : {"CUDA_PATH", "CUDA_HOME"}) {
    const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path(), {std::string(variable) + "=cuda"});
    EXPECT_EQ(r.exit_code, k_environment) << r.err;
    EXPECT_NE(r.err.find(std::string(variable) + " is 'cuda', a relative path; it must be absolute"), std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(dir.path() / "out.kiln"));
  }
}

TEST(BuildErrors, BadCommandLineIsUsageError) {
  ScratchDir dir;
  EXPECT_EQ(run_kiln({}, dir.path()).exit_code, k_usage);
  EXPECT_EQ(run_kiln({"build", "--jobs", "0"}, dir.path()).exit_code, k_usage);
  EXPECT_EQ(run_kiln({"frobnicate"}, dir.path()).exit_code, k_usage);
  EXPECT_EQ(run_kiln({"--version"}, dir.path()).exit_code, 0);
}

// NVRTC takes a 0xFF byte for the end of the file, even in a comment, and loses the rest silently; the
// byte is found, named at its line, and nvcc, which reads it, compiles the source instead.
TEST(BuildErrors, ByteFFInACommentIsNamedAndNvccCompilesTheSource) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "instantiate = [\"scale<float>\"]\n", std::string("// caf\xff\n") + k_good_source);
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "-v"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("p/kernels/k.cu:1:7: error: a 0xFF byte"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("so nvcc did"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no symbol for"), std::string::npos) << r.err;
}

// An output that cannot be written is an environment error giving the output and the reason.
TEST(BuildErrors, OutputInAMissingDirectoryGivesTheReasonAndTheOutput) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "", k_good_source);
  const RunResult r = run_kiln({"build", "-o", "missing/out.kiln"}, p);
  EXPECT_EQ(r.exit_code, k_environment);
  EXPECT_NE(r.err.find("missing/out.kiln"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

TEST(BuildErrors, ReadOnlyOutputDirectoryGivesTheReasonAndTheOutput) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "", k_good_source);
  fs::create_directory(p / "ro");
  fs::permissions(p / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  const RunResult r = run_kiln({"build", "-o", "ro/out.kiln"}, p);
  fs::permissions(p / "ro", fs::perms::owner_all);
  EXPECT_EQ(r.exit_code, k_environment);
  EXPECT_NE(r.err.find("ro/out.kiln"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
}

TEST(BuildErrors, SourceWithoutKernelsIsAWarningNamingIt) {
  ScratchDir dir;
  const fs::path p = write_errors_project(dir, "[[source]]\npath = \"kernels/empty.cu\"\n", k_good_source);
  write_text(p / "kernels/empty.cu", "");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("p/kernels/empty.cu: warning: this source defines no kernel"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("p/kernels/k.cu: warning: this source defines no kernel"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kiln::test
