// python_sources: Python files scanned for requests to the Kiln binding. They follow the host_sources
// rules (which follow the source path rules), with messages that say "Python source".
#include "temp_project.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::manifest {
namespace {

using testing::fails_with;
using testing::TempProject;
using Strings = std::vector<std::string>;

constexpr const char* k_source = "[[source]]\npath = \"k.cu\"\n";

TEST(ManifestPythonSources, AbsentMeansNone) {
  TempProject project;
  project.write("k.cu");
  const Result<Manifest> manifest = project.read(k_source);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_TRUE(manifest->python_sources.empty());
}

TEST(ManifestPythonSources, PathsAreNormalizedAndKeepTheirOrder) {
  TempProject project;
  project.write("k.cu");
  project.write("pkg/ops.py");
  project.write("pkg/__init__.py");
  const Result<Manifest> manifest =
      project.read(std::string("python_sources = [\"pkg/ops.py\", \"./pkg//x/../__init__.py\"]\n") + k_source);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->python_sources, (Strings{"pkg/ops.py", "pkg/__init__.py"}));
  EXPECT_TRUE(manifest->host_sources.empty());
}

TEST(ManifestPythonSources, AMissingFileNamesTheManifestLine) {
  TempProject project;
  project.write("k.cu");
  EXPECT_TRUE(fails_with(project.read(std::string("name = \"p\"\npython_sources = [\n  \"pkg/ops.py\"]\n") + k_source),
                         project.at(3) + "Python source path 'pkg/ops.py' does not exist (looked for " +
                             (project.root() / "pkg/ops.py").string() + ")"));
}

TEST(ManifestPythonSources, PathRulesAreThoseOfSources) {
  TempProject project;
  project.write("k.cu");
  project.write("../outside.py");
  const std::string absolute = (project.root() / "k.cu").string();
  EXPECT_TRUE(fails_with(project.read("python_sources = [\"" + absolute + "\"]\n" + k_source),
                         project.at(1) + "Python source path '" + absolute +
                             "' must be relative to the manifest directory"));
  EXPECT_TRUE(fails_with(project.read(std::string("python_sources = [\"../outside.py\"]\n") + k_source),
                         project.at(1) + "Python source path '../outside.py' is outside the manifest directory"));
  project.make_dir("pkg");
  EXPECT_TRUE(fails_with(project.read(std::string("python_sources = [\"pkg\"]\n") + k_source),
                         project.at(1) + "Python source path 'pkg' is not a file"));
}

TEST(ManifestPythonSources, ListedTwiceOrAlsoElsewhere) {
  TempProject project;
  project.write("k.cu");
  project.write("ops.py");
  EXPECT_TRUE(fails_with(project.read(std::string("python_sources = [\"ops.py\",\n  \"./ops.py\"]\n") + k_source),
                         project.at(2) + "Python source 'ops.py' is listed twice (first at line 1)"));
  EXPECT_TRUE(fails_with(project.read(std::string("python_sources = [\"k.cu\"]\n") + k_source),
                         project.at(1) + "Python source 'k.cu' is also a [[source]] (line 2)"));
  EXPECT_TRUE(fails_with(
      project.read(std::string("host_sources = [\"ops.py\"]\npython_sources = [\"ops.py\"]\n") + k_source),
      project.at(2) + "Python source 'ops.py' is also in 'host_sources', whose files are parsed as C or C++"));
}

TEST(ManifestPythonSources, WrongTypeAndWrongLevel) {
  TempProject project;
  project.write("k.cu");
  project.write("ops.py");
  EXPECT_TRUE(fails_with(project.read(std::string("python_sources = \"ops.py\"\n") + k_source),
                         project.at(1) + "'python_sources' must be an array of strings, not a string"));
  EXPECT_TRUE(fails_with(project.read(std::string(k_source) + "python_sources = [\"ops.py\"]\n"),
                         project.at(3) +
                             "unknown key 'python_sources' in [[source]] (it can only be set at the top level)"));
  EXPECT_TRUE(fails_with(project.read(std::string("python_source = [\"ops.py\"]\n") + k_source),
                         project.at(1) + "unknown key 'python_source' (did you mean 'python_sources'?)"));
}

}  // namespace
}  // namespace kiln::manifest
