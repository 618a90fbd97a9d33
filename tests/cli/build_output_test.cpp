// What kiln says (issue 12, points 4 and 5): silence on success, -v/--summary/-q, --json on build and
// verify, colour, did-you-mean for commands, and errors where the user made them: the manifest's
// line and column, a name expression at its own entry (never NVRTC's __nv_name_map), the targets of
// a failed compile.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

const char* k_source = "template <typename T> __global__ void scale(T* x, T f) { x[0] *= f; }\n"
                       "extern \"C\" __global__ void use(float* x) { x[0] = 1; }\n";

fs::path write_output_project(const ScratchDir& dir, const std::string& manifest, const std::string& source = k_source) {
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", manifest);
  write_text(p / "kernels/k.cu", source);
  return p;
}

const std::string k_one_target = "targets = [\"sm_80\"]\n[[source]]\npath = \"kernels/k.cu\"\n";
// The same with the template instantiated: a build with nothing to warn about.
const std::string k_complete = k_one_target + "instantiate = [\"scale<float>\"]\n";

TEST(BuildOutput, SilentOnSuccess) {
  ScratchDir dir;
  write_output_project(dir, k_complete);
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "");
}

TEST(BuildOutput, SummaryLineWithSummaryOrVerbose) {
  ScratchDir dir;
  write_output_project(dir, k_complete);
  for (const char* flag : {"--summary", "-v"}) {
    const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", flag}, dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("kiln: wrote out.kiln: 2 kernels, 1 units x 1 targets"), std::string::npos) << flag << r.err;
  }
}

TEST(BuildOutput, QuietHidesWarnings) {
  ScratchDir dir;
  const fs::path p = write_output_project(dir, k_one_target + "[[source]]\npath = \"kernels/empty.cu\"\n");
  write_text(p / "kernels/empty.cu", "// nothing\n");
  const RunResult loud = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(loud.exit_code, 0) << loud.err;
  EXPECT_NE(loud.err.find("p/kernels/empty.cu: warning: this source defines no kernel"), std::string::npos) << loud.err;
  const RunResult quiet = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "-q"}, dir.path());
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
}

TEST(BuildOutput, JsonReportOnStdout) {
  ScratchDir dir;
  write_output_project(dir, k_complete);
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--json"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["ok"], true);
  EXPECT_EQ(report["output"], "out.kiln");
  EXPECT_EQ(report["kernels"], 2);
  EXPECT_EQ(report["targets"], nlohmann::json::array({"sm_80"}));
  ASSERT_EQ(report["units"].size(), 1u);
  EXPECT_EQ(report["units"][0]["source"], "kernels/k.cu");
  EXPECT_EQ(report["units"][0]["compiler"], "nvrtc");
  EXPECT_EQ(report["units"][0]["images"][0]["target"], "sm_80");
  EXPECT_EQ(report["units"][0]["images"][0]["cache"], "miss");  // a fresh cache directory per test tree
  const RunResult again = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--json"}, dir.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["units"][0]["images"][0]["cache"], "hit");
  EXPECT_TRUE(report["seconds"].contains("compile"));
  EXPECT_TRUE(report["warnings"].empty());
}

TEST(BuildOutput, JsonReportOfAFailedBuild) {
  ScratchDir dir;
  write_output_project(dir, k_one_target, "this is not CUDA\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--json"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["exit_code"], 1);
  EXPECT_NE(r.err.find("error"), std::string::npos);
}

TEST(BuildOutput, ColourOnlyWhenAsked) {
  ScratchDir dir;
  write_output_project(dir, "targets = [\"sm90\"]\n[[source]]\npath = \"kernels/k.cu\"\n");
  const RunResult always = run_kiln({"build", "p/kiln.toml", "--color=always"}, dir.path());
  EXPECT_EQ(always.exit_code, 3);
  EXPECT_NE(always.err.find("\033[1m" "p/kiln.toml:1:12:\033[0m \033[1;31merror:\033[0m invalid target"),
            std::string::npos) << always.err;
  const RunResult global = run_kiln({"--color=always", "build", "p/kiln.toml"}, dir.path());
  EXPECT_NE(global.err.find("\033[1;31merror:"), std::string::npos) << global.err;
  for (const RunResult& plain : {run_kiln({"build", "p/kiln.toml", "--color=never"}, dir.path()),
                                 run_kiln({"build", "p/kiln.toml"}, dir.path(), {"NO_COLOR=1"})})
    EXPECT_EQ(plain.err.find('\033'), std::string::npos) << plain.err;
}

TEST(BuildOutput, UnknownCommandSuggestsTheNearest) {
  ScratchDir dir;
  const RunResult r = run_kiln({"biuld"}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kiln: error: unknown command 'biuld' (did you mean 'build'?)"), std::string::npos) << r.err;
}

TEST(BuildErrorsAtTheirPlace, ManifestErrorHasLineColumnAndSuggestion) {
  ScratchDir dir;
  write_output_project(dir, "targets = [\"sm_80\", \"9.0a\"]\n[[source]]\npath = \"kernels/k.cu\"\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml"}, dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err.rfind("p/kiln.toml:1:21: error: invalid target '9.0a' in 'targets' (did you mean 'sm_90a'?)", 0), 0u)
      << r.err;
}

TEST(BuildErrorsAtTheirPlace, PackageNameThatCannotBeAFile) {
  ScratchDir dir;
  write_output_project(dir, "name = \"lib:kernels\"\n" + k_one_target);
  const RunResult r = run_kiln({"build", "p/kiln.toml"}, dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("p/kiln.toml:1:8: error: package name 'lib:kernels' cannot be a file name"), std::string::npos)
      << r.err;
}

TEST(BuildErrorsAtTheirPlace, NameExpressionErrorIsAtItsInstantiateEntry) {
  ScratchDir dir;
  write_output_project(dir, k_one_target + "instantiate = [\"scale<float>\",\n               \"scale<flaot>\"]\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  // Line 5, the entry itself: 'flaot' is at column 23, in the string whose quote is at column 16.
  EXPECT_NE(r.err.find("p/kiln.toml:5:23: error: identifier \"flaot\" is undefined in 'scale<flaot>'"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("p/kiln.toml:5:17: note: an instantiation listed for kernels/k.cu"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("__nv_name_map"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Error in parsing name expression"), std::string::npos) << r.err;
}

// A misspelt template or type: the scan knows the source's kernels, so the error says what was meant,
// with the namespace the user left out.
TEST(BuildErrorsAtTheirPlace, MisspeltNamesInAnInstantiationGetADidYouMean) {
  ScratchDir dir;
  write_output_project(dir, k_one_target + "instantiate = [\"scael<float>\", \"scale<flaot>\", \"block_sum<int>\"]\n",
                std::string(k_source) +
                    "namespace mylib { template <typename T> __global__ void block_sum(T* x) { x[0] += 1; } }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("p/kiln.toml:4:17: error: identifier \"scael\" is undefined in 'scael<float>' (did you mean "
                       "'scale'?)"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is undefined in 'scale<flaot>' (did you mean 'float'?)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("is undefined in 'block_sum<int>' (did you mean 'mylib::block_sum'?)"), std::string::npos)
      << r.err;
}

// A name expression NVRTC resolves to something that is not a kernel (a __device__ function
// template): reported at its own `instantiate` entry, in the compilers' format.
TEST(BuildErrorsAtTheirPlace, InstantiationThatIsNoKernelIsAtItsEntry) {
  ScratchDir dir;
  write_output_project(dir, k_one_target + "instantiate = [\"scale<float>\", \"twice<int>\"]\n",
                std::string(k_source) + "template <typename T> __device__ T twice(T x) { return 2 * x; }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("p/kiln.toml:4:33: error: 'twice<int>' is not a kernel in the compiled images of p/kernels/k.cu"),
            std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("kiln: error: p/kiln.toml"), std::string::npos) << r.err;
}

TEST(BuildErrorsAtTheirPlace, CompileFailureNamesItsTargets) {
  ScratchDir dir;
  write_output_project(dir, "targets = [\"sm_80\", \"sm_90\"]\n[[source]]\npath = \"kernels/k.cu\"\n",
                "extern \"C\" __global__ void k(int* x) {\n#ifndef __clang__\n  x[0] = undefined_name;\n#endif\n}\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("p/kernels/k.cu: note: targets sm_80, sm_90"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kiln: error: 2 of 2 compiles failed (p/kernels/k.cu for sm_80, sm_90); no package written"),
            std::string::npos) << r.err;
}

TEST(VerifyOutput, JsonVerdictOnStdout) {
  ScratchDir dir;
  write_output_project(dir, k_complete);
  ASSERT_EQ(run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path()).exit_code, 0);
  const RunResult r = run_kiln({"verify", "out.kiln", "--json"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json verdict = nlohmann::json::parse(r.out);
  EXPECT_EQ(verdict["ok"], true);
  EXPECT_EQ(verdict["kernels"], 2);
  EXPECT_TRUE(verdict["problems"].empty());
}

}  // namespace
}  // namespace kiln::test
