// kiln build on sources the scanner cannot read but the compilers accept: the build goes on, the
// kernels come from the compiled images, one warning per file says what discovery was lost, and
// --strict turns that warning into an error. A source NVRTC rejects goes to nvcc.
//
// `#error` under __clang__ stands for everything clang 19 refuses where nvcc does not: only the
// scanner defines __clang__ (NVRTC does not, nor does nvcc's host compiler, g++).
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"
#include "package_kernels.hpp"

#include <gtest/gtest.h>

#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using Names = std::set<std::string>;

constexpr const char* k_clang_refuses = "#ifdef __clang__\n#error \"clang cannot read this file\"\n#endif\n";

// A kernel template and its instantiation: a device-only source the scan reads (a source with nothing
// for a parse to name is left to NVRTC's image unread: docs/scan.md).
constexpr const char* k_filled_template = "template <int N> __global__ void fill(int* x) { x[0] = N; }\n"
                                          "template __global__ void fill<7>(int*);\n";

fs::path write_unscannable_project(const ScratchDir& dir, const std::string& source, const std::string& manifest_extra = "") {
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", "targets = [\"sm_80\", \"compute_80\"]\n[[source]]\npath = \"kernels/k.cu\"\n" + manifest_extra);
  write_text(p / "kernels/k.cu", source);
  return p;
}


TEST(BuildUnscannable, TheCompilerDecidesWhichKernelsADeviceSourceHolds) {
  ScratchDir dir;
  write_unscannable_project(dir, std::string(k_clang_refuses) +
                         "template <typename T> __global__ void scale(T* x, T f) { x[0] *= f; }\n"
                         "template __global__ void scale<float>(float*, float);\n"
                         "extern \"C\" __global__ void fill(int* x) { x[0] = 7; }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("p/kernels/k.cu: warning: the scan cannot read this source, so what it would find here is lost"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("clang's first error: p/kernels/k.cu:2:2: \"clang cannot read this file\""), std::string::npos)
      << r.err;
  const std::string warning = "warning: the scan cannot read";
  EXPECT_EQ(r.err.find(warning), r.err.rfind(warning)) << "one warning per source";
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"fill", "scale<float>"}));
  EXPECT_EQ(run_kiln({"verify", "out.kiln"}, dir.path()).exit_code, 0);
}

TEST(BuildUnscannable, StrictMakesTheLostDiscoveryAnErrorAndWritesNothing) {
  ScratchDir dir;
  write_unscannable_project(dir, std::string(k_clang_refuses) + "extern \"C\" __global__ void fill(int* x) { x[0] = 7; }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--strict"}, dir.path());
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("p/kernels/k.cu: error: the scan cannot read this source"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kiln: error: 1 finding of the scan with --strict; no package written"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln"));
}

// Where nobody passes --strict (pip, CI), KILN_STRICT=1 does the same; a build with warnings ends
// with a line that counts them and says so (pip shows a build's output with -v).
TEST(BuildUnscannable, KilnStrictInTheEnvironmentIsStrictAndWarningsEndWithACount) {
  ScratchDir dir;
  write_unscannable_project(dir, std::string(k_clang_refuses) + k_filled_template);
  const RunResult warned = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path(), {"KILN_STRICT=0"});
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("kiln: out.kiln: 1 warning (above): 1 from the scan; with --strict (KILN_STRICT=1) the "
                            "scan's findings fail the build\n"),
            std::string::npos) << warned.err;
  const RunResult strict = run_kiln({"build", "p/kiln.toml", "-o", "strict.kiln"}, dir.path(), {"KILN_STRICT=1"});
  EXPECT_EQ(strict.exit_code, k_failed);
  EXPECT_NE(strict.err.find("p/kernels/k.cu: error: the scan cannot read this source"), std::string::npos) << strict.err;
  EXPECT_FALSE(fs::exists(dir.path() / "strict.kiln"));
  const RunResult bad = run_kiln({"build", "p/kiln.toml", "-o", "bad.kiln"}, dir.path(), {"KILN_STRICT=maybe"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("kiln: error: KILN_STRICT='maybe': expected 1"), std::string::npos) << bad.err;
}

// The closing count names whose the warnings are; a compiler's warning is not the scan's, so
// --strict, which would not fail the build on it, is not offered (docs/cli.md, "kiln build").
TEST(BuildUnscannable, TheWarningCountNamesWhoseTheyAre) {
  ScratchDir dir;
  const std::string unused = "extern \"C\" __global__ void fill(int* x) { int unused; x[0] = 7; }\n";
  write_unscannable_project(dir, unused);
  const RunResult compiler = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(compiler.exit_code, 0) << compiler.err;
  EXPECT_NE(compiler.err.find("warning #177-D"), std::string::npos) << compiler.err;
  EXPECT_NE(compiler.err.find("kiln: out.kiln: 1 warning (above): 1 from the compiler\n"), std::string::npos)
      << compiler.err;
  EXPECT_EQ(compiler.err.find("--strict"), std::string::npos) << compiler.err;

  write_unscannable_project(dir, std::string(k_clang_refuses) + unused + k_filled_template);
  const RunResult both = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.err.find("kiln: out.kiln: 2 warnings (above): 1 from the scan, 1 from the compiler; with --strict "
                          "(KILN_STRICT=1) the scan's findings fail the build\n"),
            std::string::npos) << both.err;
}

// A device-only source with no template and no variable is not parsed at all (NVRTC's image names what
// a parse would): what clang refuses in it is no warning, even with --strict's findings.
TEST(BuildUnscannable, ASourceLeftToNvrtcsImageIsNeverReadByTheScan) {
  ScratchDir dir;
  write_unscannable_project(dir, std::string(k_clang_refuses) + "extern \"C\" __global__ void fill(int* x) { x[0] = 7; }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "-v"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("scan: 0 cached, 0 scanned, 1 source left to NVRTC's image"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"fill"}));
  EXPECT_EQ(run_kiln({"build", "p/kiln.toml", "-o", "strict.kiln", "--strict"}, dir.path()).exit_code, k_failed)
      << "--strict reads every source";
}

TEST(BuildUnscannable, StrictMakesTheScannersOtherWarningsErrorsToo) {
  ScratchDir dir;
  write_unscannable_project(dir, "template <typename T> __global__ void never(T* x) { x[0] = T(); }\n"
                     "extern \"C\" __global__ void fill(int* x) { x[0] = 7; }\n");
  ASSERT_EQ(run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path()).exit_code, 0);
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "strict.kiln", "--strict"}, dir.path());
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("p/kernels/k.cu:1:39: error: kernel template 'never' is never instantiated"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "strict.kiln"));
}

TEST(BuildUnscannable, ASourceWithHostCodeTheScanCannotSeeGoesToNvcc) {
  ScratchDir dir;
  write_unscannable_project(dir, std::string(k_clang_refuses) +
                         "template <typename T> __global__ void scale(T* x, T f) { x[0] *= f; }\n"
                         "void run(float* x) { scale<float><<<1, 1>>>(x, 2.0f); }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "-v"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Its text shows host code (a launch), so nvcc compiles it at once, and the scan does not try it
  // (docs/scan.md, "What the build reads").
  EXPECT_NE(r.err.find("1 source left to nvcc's image"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("NVRTC cannot compile it"), std::string::npos) << r.err;
  // The launch instantiates the template: nvcc found it, not the scan.
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"scale<float>"}));
  EXPECT_EQ(run_kiln({"verify", "out.kiln"}, dir.path()).exit_code, 0);
}

TEST(BuildUnscannable, AHostSourceTheScanCannotReadLosesItsRequestsOnly) {
  ScratchDir dir;
  const fs::path p = write_unscannable_project(dir, "extern \"C\" __global__ void fill(int* x) { x[0] = 7; }\n",
                                   "");
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\nhost_sources = [\"app.cpp\"]\n[[source]]\npath = \"kernels/k.cu\"\n");
  write_text(p / "app.cpp", "int main() { return undeclared(); }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("p/app.cpp: warning: the scan cannot read this host source, so the requests to the Kiln "
                       "runtime in it are not discovered; clang's first error: p/app.cpp:1:21: use of undeclared "
                       "identifier 'undeclared'"),
            std::string::npos) << r.err;
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), Names{"fill"});
}

}  // namespace
}  // namespace kiln::test

namespace kiln::test {
namespace {

// nvcc's symbols demangle enumerator arguments by value ("k<(Mode)3>"): the scan gives each
// instantiation that spelling too, so the names host code writes ("k<Mode::fast, PLAIN_A>") are
// recorded for nvcc-built units as they are for NVRTC's.
TEST(BuildNames, EnumeratorArgumentsNameKernelsNvccBuilds) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "k.cu", "enum class Mode { fast = 3, slow = 7 };\nenum plain_enum { PLAIN_A = 10, PLAIN_B };\n"
                         "template <Mode M, plain_enum P> __global__ void k(int* x) { x[0] = (int)M + P; }\n"
                         "void run(int* x) { k<Mode::slow, PLAIN_B><<<1, 1>>>(x); }\n");
  write_text(p / "app.cpp", "#include <kiln/kiln.hpp>\nvoid f(kiln::Package& p) { p.kernel(\"k<Mode::fast, PLAIN_A>\"); }\n");
  write_text(p / "kiln.toml", "targets = [\"sm_90\"]\nhost_sources = [\"app.cpp\"]\n[[source]]\npath = \"k.cu\"\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("matches no kernel"), std::string::npos) << r.err;
  const std::vector<std::byte> bytes = read_bytes(dir.path() / "out.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  const auto launched = reader.find_kernel("k<Mode::slow, PLAIN_B>");
  const auto requested = reader.find_kernel("k<Mode::fast, PLAIN_A>");
  ASSERT_TRUE(launched && requested);
  EXPECT_EQ(reader.kernel(*launched).lowered_name, "_Z1kIL4Mode7EL10plain_enum11EEvPi");
  EXPECT_EQ(reader.kernel(*requested).lowered_name, "_Z1kIL4Mode3EL10plain_enum10EEvPi");
}

}  // namespace
}  // namespace kiln::test
