// How many compiles kiln build runs at once (issue 12, point 2): -j caps, KILN_JOBS is the default
// cap, and under GNU make kiln takes its slots from make's jobserver and gives every one back. The
// jobserver's token accounting itself is tested in tests/generator/jobserver_test.cpp.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;


// MAKEFLAGS cleared: these tests may themselves run under make.
RunResult build_v(const fs::path& project, std::vector<std::string> args, std::vector<std::string> env) {
  args.insert(args.begin(), {"build", "-v"});
  env.push_back("MAKEFLAGS=");
  return run_kiln(args, project, env);
}

TEST(BuildJobs, KilnJobsIsTheDefaultAndMinusJWins) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");
  const RunResult from_env = build_v(project, {"-o", "../a.kiln"}, {"KILN_JOBS=3"});
  ASSERT_EQ(from_env.exit_code, 0) << from_env.err;
  EXPECT_NE(from_env.err.find("jobs: 3 (KILN_JOBS)\n"), std::string::npos) << from_env.err;

  const RunResult flag = build_v(project, {"-o", "../b.kiln", "-j", "2"}, {"KILN_JOBS=3"});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_NE(flag.err.find("jobs: 2 (-j)\n"), std::string::npos) << flag.err;

  const RunResult cores = build_v(project, {"-o", "../c.kiln"}, {"KILN_JOBS="});
  ASSERT_EQ(cores.exit_code, 0) << cores.err;
  EXPECT_NE(cores.err.find(" (cores)\n"), std::string::npos) << cores.err;

  for (const char* bad : {"KILN_JOBS=0", "KILN_JOBS=four", "KILN_JOBS=2x", "KILN_JOBS=5000"}) {
    const RunResult r = build_v(project, {"-o", "../d.kiln"}, {bad});
    EXPECT_EQ(r.exit_code, k_usage) << bad << "\n" << r.err;
    EXPECT_NE(r.err.find("kiln: error: " + std::string(bad) + " is not a number of jobs from 1 to 1024"),
              std::string::npos)
        << r.err;
  }
}

struct MakeRun {
  int exit_code = -1;
  std::string output;
};

// Runs GNU make in `dir` on `makefile` (recipes: "TARGET: COMMAND" lines; KILN is the kiln executable).
MakeRun run_make(const fs::path& dir, const std::string& makefile, const std::string& flags) {
  write_text(dir / "Makefile", makefile);
  const std::string command = "cd '" + dir.string() + "' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make " + flags +
                              " KILN='" + KILN_EXE + "' >make.log 2>&1";
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(dir / "make.log")};
}

TEST(BuildJobs, UnderMakeTheJobserverLendsTheSlotsAndGetsEveryOneBack) {
  if (std::system("make --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no GNU make";
  ScratchDir dir;
  dir.copy_project("basic", "ok");
  const fs::path broken = dir.copy_project("basic", "broken");
  write_text(broken / "kernels" / "more.cu", "__global__ void broken(int* x) { x[0] = undefined_name; }\n");
  // '+': make < 4.4 passes its jobserver's descriptors only to recursive rules. Every build has a cold
  // cache of its own, so each compiles; the broken one fails with tokens taken.
  const std::string makefile =
      "all: a.kiln b.kiln c.kiln\n"
      "a.kiln:\n\t+KILN_CACHE_DIR=cache-a $(KILN) build -v ok/kiln.toml -o $@\n"
      "b.kiln:\n\t+KILN_CACHE_DIR=cache-b $(KILN) build -v ok/kiln.toml -o $@ -j 2\n"
      "c.kiln:\n\t+KILN_CACHE_DIR=cache-c KILN_JOBS=3 $(KILN) build -v broken/kiln.toml -o $@\n";
  const MakeRun make = run_make(dir.path(), makefile, "-k -j4");
  EXPECT_NE(make.exit_code, 0) << make.output;
  EXPECT_TRUE(fs::exists(dir.path() / "a.kiln")) << make.output;
  EXPECT_TRUE(fs::exists(dir.path() / "b.kiln")) << make.output;
  // -j and KILN_JOBS cap what the jobserver lends.
  EXPECT_EQ(count(make.output, "jobs: as make's jobserver allows\n"), 1u) << make.output;
  EXPECT_EQ(count(make.output, "jobs: as make's jobserver allows, at most 2 (-j)\n"), 1u) << make.output;
  EXPECT_EQ(count(make.output, "jobs: as make's jobserver allows, at most 3 (KILN_JOBS)\n"), 1u) << make.output;
  EXPECT_NE(make.output.find("undefined_name"), std::string::npos) << make.output;
  // Make counts its tokens when it exits and says so when one is missing.
  EXPECT_EQ(make.output.find("INTERNAL"), std::string::npos) << make.output;
  EXPECT_EQ(make.output.find("tokens"), std::string::npos) << make.output;
}

TEST(BuildJobs, AJobserverThatIsNotPassedOnIsIgnoredWithAWarning) {
  if (std::system("make --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no GNU make";
  ScratchDir dir;
  dir.copy_project("basic", "ok");
  // No '+': make 4.3 names its descriptors in MAKEFLAGS but closes them; make 4.4's fifo is always there.
  const MakeRun make =
      run_make(dir.path(), "a.kiln:\n\tKILN_CACHE_DIR=cache $(KILN) build -v ok/kiln.toml -o $@\n", "-j2");
  ASSERT_EQ(make.exit_code, 0) << make.output;
  const bool used = make.output.find("jobs: as make's jobserver allows\n") != std::string::npos;
  const bool ignored = make.output.find("are not open (make passes them only to rules marked '+' or running "
                                        "$(MAKE)); ignoring the jobserver MAKEFLAGS names") != std::string::npos;
  EXPECT_TRUE(used != ignored) << make.output;
  if (ignored) {
    EXPECT_NE(make.output.find(" (cores)\n"), std::string::npos) << make.output;
  }
}

}  // namespace
}  // namespace kiln::test
