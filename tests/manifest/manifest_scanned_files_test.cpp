// host_sources and python_sources: files scanned only for requests to the Kiln runtime (C and C++
// host code; Python code, for the binding). Both keys follow the source path rules, read by one
// function, with messages that say "host source" or "Python source": each case runs for both.
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

struct ScannedKey {
  std::string key;                       // "host_sources"
  std::string noun;                      // "host source", as messages say it
  std::string ext;                       // ".cpp": what such a file is called in the cases
  Strings Manifest::*files;              // where the reader puts them
  Strings Manifest::*other;              // the other key's files, which stay empty
};

const ScannedKey k_host{"host_sources", "host source", ".cpp", &Manifest::host_sources, &Manifest::python_sources};
const ScannedKey k_python{"python_sources", "Python source", ".py", &Manifest::python_sources, &Manifest::host_sources};

class ManifestScannedFiles : public ::testing::TestWithParam<ScannedKey> {
protected:
  const ScannedKey& p() const { return GetParam(); }
  // `key = value`, a line of its own.
  std::string entry(const std::string& value) const { return p().key + " = " + value + "\n"; }
};

TEST_P(ManifestScannedFiles, AbsentMeansNone) {
  TempProject project;
  project.write("k.cu");
  const Result<Manifest> manifest = project.read(k_source);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_TRUE(((*manifest).*p().files).empty());
}

TEST_P(ManifestScannedFiles, PathsAreNormalizedAndKeepTheirOrder) {
  TempProject project;
  project.write("k.cu");
  project.write("src/app" + p().ext);
  project.write("tools/probe" + p().ext);
  const Result<Manifest> manifest =
      project.read(entry("[\"tools/probe" + p().ext + "\", \"./src//x/../app" + p().ext + "\"]") + k_source);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ((*manifest).*p().files, (Strings{"tools/probe" + p().ext, "src/app" + p().ext}));
  EXPECT_TRUE(((*manifest).*p().other).empty());
}

TEST_P(ManifestScannedFiles, PathRulesAreThoseOfSources) {
  TempProject project;
  project.write("k.cu");
  project.write("../outside" + p().ext);
  const std::string absolute = (project.root() / "k.cu").string();
  const std::string path = p().noun + " path ";
  EXPECT_TRUE(fails_with(project.read(entry("[\"" + absolute + "\"]") + k_source),
                         project.at(1) + path + "'" + absolute + "' must be relative to the manifest directory"));
  EXPECT_TRUE(fails_with(project.read(entry("[\"../outside" + p().ext + "\"]") + k_source),
                         project.at(1) + path + "'../outside" + p().ext + "' is outside the manifest directory"));
  const std::string missing = "src/missing" + p().ext;
  EXPECT_TRUE(fails_with(project.read(entry("[\"" + missing + "\"]") + k_source),
                         project.at(1) + path + "'" + missing + "' does not exist (looked for " +
                             (project.root() / missing).string() + ")"));
  project.make_dir("src");
  EXPECT_TRUE(fails_with(project.read(entry("[\"src\"]") + k_source), project.at(1) + path + "'src' is not a file"));
}

TEST_P(ManifestScannedFiles, AnErrorNamesTheLineOfTheEntry) {
  TempProject project;
  project.write("k.cu");
  const std::string missing = "pkg/ops" + p().ext;
  EXPECT_TRUE(fails_with(project.read("name = \"p\"\n" + entry("[\n  \"" + missing + "\"]") + k_source),
                         project.at(3) + p().noun + " path '" + missing + "' does not exist (looked for " +
                             (project.root() / missing).string() + ")"));
}

TEST_P(ManifestScannedFiles, ListedTwice) {
  TempProject project;
  project.write("k.cu");
  const std::string file = "app" + p().ext;
  project.write(file);
  EXPECT_TRUE(fails_with(project.read(entry("[\"" + file + "\",\n  \"./" + file + "\"]") + k_source),
                         project.at(2) + p().noun + " '" + file + "' is listed twice (first at line 1)"));
}

TEST_P(ManifestScannedFiles, AKernelSourceIsNotAlsoOne) {
  TempProject project;
  project.write("k.cu");
  EXPECT_TRUE(fails_with(project.read(entry("[\"k.cu\"]") + k_source),
                         project.at(1) + p().noun + " 'k.cu' is also a [[source]] (line 2)"));
}

TEST_P(ManifestScannedFiles, WrongTypeAndWrongLevel) {
  TempProject project;
  project.write("k.cu");
  const std::string file = "app" + p().ext;
  project.write(file);
  EXPECT_TRUE(fails_with(project.read(entry("\"" + file + "\"") + k_source),
                         project.at(1) + "'" + p().key + "' must be an array of strings, not a string"));
  EXPECT_TRUE(fails_with(project.read(k_source + entry("[\"" + file + "\"]")),
                         project.at(3) + "unknown key '" + p().key +
                             "' in [[source]] (it can only be set at the top level)"));
  const std::string singular = p().key.substr(0, p().key.size() - 1);
  EXPECT_TRUE(fails_with(project.read(singular + " = [\"" + file + "\"]\n" + k_source),
                         project.at(1) + "unknown key '" + singular + "' (did you mean '" + p().key + "'?)"));
}

INSTANTIATE_TEST_SUITE_P(Keys, ManifestScannedFiles, ::testing::Values(k_host, k_python),
                         [](const ::testing::TestParamInfo<ScannedKey>& param_info) { return param_info.param.key; });

// Host sources are parsed as C or C++: a Python file cannot be one too.
TEST(ManifestPythonSources, NotAlsoAHostSource) {
  TempProject project;
  project.write("k.cu");
  project.write("ops.py");
  EXPECT_TRUE(fails_with(
      project.read(std::string("host_sources = [\"ops.py\"]\npython_sources = [\"ops.py\"]\n") + k_source),
      project.at(2) + "Python source 'ops.py' is also in 'host_sources', whose files are parsed as C or C++"));
}

}  // namespace
}  // namespace kiln::manifest
