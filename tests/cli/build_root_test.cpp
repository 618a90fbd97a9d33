// kiln build --root and --targets, which CMake's kiln_add_cache uses: a manifest kept outside the
// tree it names (in a build directory), and targets from the command line instead of the manifest's.
#include "kiln_runner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> targets_of(const fs::path& package, const fs::path& cwd) {
  const RunResult inspect = run_kiln({"inspect", package.string(), "--json"}, cwd);
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  return nlohmann::json::parse(inspect.out)["targets"].get<std::vector<std::string>>();
}

TEST(BuildRoot, AManifestElsewhereBuildsTheSameBytesAsInPlace) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");
  ASSERT_EQ(run_kiln({"build", "-o", "../in-place.kiln"}, project).exit_code, 0);
  fs::create_directories(dir.path() / "build/generated");
  fs::copy_file(project / "kiln.toml", dir.path() / "build/generated/kiln.toml");

  const RunResult rooted = run_kiln(
      {"build", "build/generated/kiln.toml", "--root", "project", "-o", "rooted.kiln"}, dir.path());
  ASSERT_EQ(rooted.exit_code, 0) << rooted.err;
  EXPECT_EQ(read_bytes(dir.path() / "in-place.kiln"), read_bytes(dir.path() / "rooted.kiln"));
  // The depfile names the manifest where it is, and the sources under the root.
  const std::string deps = read_text(dir.path() / "rooted.kiln.d");
  EXPECT_NE(deps.find((dir.path() / "build/generated/kiln.toml").string()), std::string::npos) << deps;
  EXPECT_NE(deps.find((project / "kernels/ops.cu").string()), std::string::npos) << deps;
}

TEST(BuildRoot, WithoutRootTheManifestsOwnDirectoryIsTheRoot) {
  ScratchDir dir;
  dir.copy_project("basic");
  fs::create_directories(dir.path() / "build");
  fs::copy_file(dir.path() / "project/kiln.toml", dir.path() / "build/kiln.toml");
  const RunResult build = run_kiln({"build", "build/kiln.toml", "-o", "x.kiln"}, dir.path());
  EXPECT_EQ(build.exit_code, 3);
  EXPECT_NE(build.err.find("source path 'kernels/ops.cu' does not exist"), std::string::npos) << build.err;
}

TEST(BuildTargets, CommandLineTargetsReplaceTheManifests) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");  // its manifest: sm_80, sm_90a, compute_80
  const RunResult build = run_kiln({"build", "-o", "../two.kiln", "--targets", "compute_90,sm_90"}, project);
  ASSERT_EQ(build.exit_code, 0) << build.err;
  EXPECT_EQ(targets_of(dir.path() / "two.kiln", dir.path()), (std::vector<std::string>{"sm_90", "compute_90"}));
}

TEST(BuildTargets, BadTargetsAreABadCommandLine) {
  ScratchDir dir;
  const fs::path project = dir.copy_project("basic");
  const RunResult bad = run_kiln({"build", "--targets", "sm_80,sm90"}, project);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("invalid target 'sm90' in --targets (did you mean 'sm_90'?)"), std::string::npos) << bad.err;
  const RunResult twice = run_kiln({"build", "--targets", "sm_80,sm_80"}, project);
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("target 'sm_80' is given twice in --targets"), std::string::npos) << twice.err;
}

}  // namespace
}  // namespace kiln::test
