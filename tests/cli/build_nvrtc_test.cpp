// Which NVRTC and nvJitLink kiln build loads, and when (compile/nvrtc_library.hpp): the files its own
// build found, bound through the compile library's table, whatever the variables that steer run-time
// compiles name; and none at all for `kiln --version` or a build the cache answers (mapping them costs
// every process about 19 ms). The dynamic loader reports what it opened (LD_DEBUG=files).
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class BuildNvrtc : public ::testing::Test {
protected:
  BuildNvrtc() : m_project(m_dir.copy_project("basic")) {}

  RunResult build(std::vector<std::string> env) {
    env.push_back("KILN_CACHE_DIR=" + (m_dir.path() / "cache").string());
    return run_kiln({"build", "-o", "basic.kiln"}, m_project, env);
  }
  // Whether the dynamic loader opened `file` (as named to it).
  static bool opened(const RunResult& r, const std::string& file) {
    return r.err.find("file=" + file + " ") != std::string::npos;
  }
  static bool opened_any_compiler(const RunResult& r) {
    return std::regex_search(r.err, std::regex(R"(file=\S*lib(nvrtc|nvJitLink)[^/\s]*\s)"));
  }

  ScratchDir m_dir;
  fs::path m_project;
};

TEST_F(BuildNvrtc, TheFilesKilnWasBuiltAgainstWhateverTheVariablesName) {
  // The same libraries by other names: had kiln followed the variables, the loader would say so.
  const fs::path other = m_dir.path() / "other";
  fs::create_directories(other);
  fs::create_symlink(KILN_TEST_NVRTC_LIBRARY, other / "libnvrtc.so.13");
  fs::create_symlink(KILN_TEST_NVJITLINK_LIBRARY, other / "libnvJitLink.so.13");
  const RunResult r = build({"LD_DEBUG=files", "KILN_NVRTC=" + (other / "libnvrtc.so.13").string(),
                             "KILN_NVJITLINK=" + (other / "libnvJitLink.so.13").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(opened(r, KILN_TEST_NVRTC_LIBRARY)) << r.err;
  EXPECT_TRUE(opened(r, KILN_TEST_NVJITLINK_LIBRARY)) << r.err;
  EXPECT_EQ(r.err.find("file=" + other.string()), std::string::npos) << r.err;
}

TEST_F(BuildNvrtc, NoneForTheVersionOrABuildTheCacheAnswers) {
  const RunResult version = run_kiln({"--version"}, m_project, {"LD_DEBUG=files"});
  ASSERT_EQ(version.exit_code, 0) << version.err;
  EXPECT_FALSE(opened_any_compiler(version)) << version.err;
  const RunResult cold = build({"LD_DEBUG=files"});
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_TRUE(opened_any_compiler(cold)) << "the check sees a load: " << cold.err;
  const RunResult warm = build({"LD_DEBUG=files"});
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_FALSE(opened_any_compiler(warm)) << warm.err;
}

}  // namespace
}  // namespace kiln::test
