// host_sources: host files scanned for runtime requests. They follow the source path rules.
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

TEST(ManifestHostSources, AbsentMeansNone) {
  TempProject project;
  project.write("k.cu");
  const Result<Manifest> manifest = project.read(k_source);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_TRUE(manifest->host_sources.empty());
}

TEST(ManifestHostSources, PathsAreNormalizedAndKeepTheirOrder) {
  TempProject project;
  project.write("k.cu");
  project.write("src/app.cpp");
  project.write("tools/probe.cu");
  const Result<Manifest> manifest =
      project.read(std::string("host_sources = [\"tools/probe.cu\", \"./src//x/../app.cpp\"]\n") + k_source);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->host_sources, (Strings{"tools/probe.cu", "src/app.cpp"}));
}

TEST(ManifestHostSources, PathRulesAreThoseOfSources) {
  TempProject project;
  project.write("k.cu");
  project.write("../outside.cpp");
  const std::string absolute = (project.root() / "k.cu").string();
  EXPECT_TRUE(fails_with(project.read("host_sources = [\"" + absolute + "\"]\n" + k_source),
                         project.at(1) + "host source path '" + absolute +
                             "' must be relative to the manifest directory"));
  EXPECT_TRUE(fails_with(project.read(std::string("host_sources = [\"../outside.cpp\"]\n") + k_source),
                         project.at(1) + "host source path '../outside.cpp' is outside the manifest directory"));
  EXPECT_TRUE(fails_with(project.read(std::string("host_sources = [\"src/missing.cpp\"]\n") + k_source),
                         project.at(1) + "host source path 'src/missing.cpp' does not exist (looked for " +
                             (project.root() / "src/missing.cpp").string() + ")"));
  project.make_dir("src");
  EXPECT_TRUE(fails_with(project.read(std::string("host_sources = [\"src\"]\n") + k_source),
                         project.at(1) + "host source path 'src' is not a file"));
}

TEST(ManifestHostSources, ListedTwice) {
  TempProject project;
  project.write("k.cu");
  project.write("app.cpp");
  EXPECT_TRUE(fails_with(project.read(std::string("host_sources = [\"app.cpp\",\n  \"./app.cpp\"]\n") + k_source),
                         project.at(2) + "host source 'app.cpp' is listed twice (first at line 1)"));
}

TEST(ManifestHostSources, AKernelSourceIsNotAlsoAHostSource) {
  TempProject project;
  project.write("k.cu");
  EXPECT_TRUE(fails_with(project.read(std::string("host_sources = [\"k.cu\"]\n") + k_source),
                         project.at(1) + "host source 'k.cu' is also a [[source]] (line 2)"));
}

TEST(ManifestHostSources, WrongTypeAndWrongLevel) {
  TempProject project;
  project.write("k.cu");
  project.write("app.cpp");
  EXPECT_TRUE(fails_with(project.read(std::string("host_sources = \"app.cpp\"\n") + k_source),
                         project.at(1) + "'host_sources' must be an array of strings, not a string"));
  EXPECT_TRUE(fails_with(project.read(std::string(k_source) + "host_sources = [\"app.cpp\"]\n"),
                         project.at(3) + "unknown key 'host_sources' in [[source]] (it can only be set at the top level)"));
  EXPECT_TRUE(fails_with(project.read(std::string("host_source = [\"app.cpp\"]\n") + k_source),
                         project.at(1) + "unknown key 'host_source' (did you mean 'host_sources'?)"));
}

}  // namespace
}  // namespace kiln::manifest
