// [[source]] tables: the path rules and the lists of names.
#include "temp_project.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::manifest {
namespace {

using testing::fails_with;
using testing::TempProject;
using Strings = std::vector<std::string>;

TEST(ManifestSources, MissingPath) {
  TempProject project;
  EXPECT_TRUE(fails_with(project.read("[[source]]\ninstantiate = [\"k\"]\n"),
                         project.at(1) + "[[source]] has no 'path'"));
}

TEST(ManifestSources, EmptyPath) {
  TempProject project;
  EXPECT_TRUE(fails_with(project.read("[[source]]\npath = \"\"\n"), project.at(2) + "'path' is empty"));
}

TEST(ManifestSources, PathOfWrongType) {
  TempProject project;
  EXPECT_TRUE(fails_with(project.read("[[source]]\npath = [\"a.cu\"]\n"),
                         project.at(2) + "'path' must be a string, not an array"));
}

TEST(ManifestSources, AbsolutePath) {
  TempProject project;
  project.write("a.cu");
  const std::string absolute = (project.root() / "a.cu").string();
  EXPECT_TRUE(fails_with(
      project.read("[[source]]\npath = \"" + absolute + "\"\n"),
      project.at(2) + "source path '" + absolute + "' must be relative to the manifest directory"));
}

TEST(ManifestSources, PathEscapingTheManifestDirectory) {
  TempProject project;
  project.write("../outside.cu");  // exists, so only the ".." rule can reject it
  project.write("kernels/a.cu");
  for (const char* path : {"../outside.cu", "kernels/../../outside.cu", ".."}) {
    EXPECT_TRUE(fails_with(project.read(std::string("[[source]]\npath = \"") + path + "\"\n"),
                           project.at(2) + "source path '" + path + "' is outside the manifest directory"))
        << path;
  }
}

TEST(ManifestSources, MissingFile) {
  TempProject project;
  EXPECT_TRUE(fails_with(project.read("[[source]]\npath = \"kernels/missing.cu\"\n"),
                         project.at(2) + "source path 'kernels/missing.cu' does not exist (looked for " +
                             (project.root() / "kernels/missing.cu").string() + ")"));
}

TEST(ManifestSources, PathThatIsADirectory) {
  TempProject project;
  project.make_dir("kernels");
  EXPECT_TRUE(fails_with(project.read("[[source]]\npath = \"kernels\"\n"),
                         project.at(2) + "source path 'kernels' is not a file"));
  EXPECT_TRUE(fails_with(project.read("[[source]]\npath = \".\"\n"),
                         project.at(2) + "source path '.' is not a file"));
}

TEST(ManifestSources, SourceListedTwice) {
  TempProject project;
  project.write("kernels/a.cu");
  EXPECT_TRUE(fails_with(
      project.read("[[source]]\npath = \"kernels/a.cu\"\n\n[[source]]\npath = \"./kernels//a.cu\"\n"),
      project.at(4) + "source 'kernels/a.cu' is listed twice (first at line 1)"));
}

TEST(ManifestSources, UnknownKeySuggestsNearestKnownKey) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(
      fails_with(project.read("[[source]]\npath = \"a.cu\"\ninstanciate = [\"k\"]\n"),
                 project.at(3) + "unknown key 'instanciate' in [[source]] (did you mean 'instantiate'?)"));
}

TEST(ManifestSources, TopLevelKeyInSourceSaysWhereItBelongs) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(fails_with(
      project.read("[[source]]\npath = \"a.cu\"\ntargets = [\"sm_80\"]\n"),
      project.at(3) + "unknown key 'targets' in [[source]] (it can only be set at the top level)"));
}

TEST(ManifestSources, ListsOfWrongType) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest =
      project.read("[[source]]\npath = \"a.cu\"\ninstantiate = \"k\"\nvariables = [1]\ntemplate = 3\n");
  EXPECT_TRUE(
      fails_with(manifest, project.at(3) + "'instantiate' must be an array of strings, not a string"));
  EXPECT_TRUE(fails_with(manifest,
                         project.at(4) + "'variables' must be an array of strings; element 1 is an integer"));
  EXPECT_TRUE(fails_with(
      manifest,
      project.at(5) + "'template' must be an array of tables ([[source.template]]), not an integer"));
}

TEST(ManifestSources, SingleTemplateTableIsAnError) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(
      fails_with(project.read("[[source]]\npath = \"a.cu\"\n[source.template]\nkernel = \"k<T>\"\nT = [1]\n"),
                 project.at(3) + "'template' must be an array of tables ([[source.template]]), not a table"));
}

TEST(ManifestSources, DuplicateExpressionNamesBothLines) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(fails_with(
      project.read("[[source]]\npath = \"a.cu\"\ninstantiate = [\n  \"f<int, 2>\",\n  \"f< int,2 >\",\n]\n"),
      project.at(5) + "name expression 'f< int,2 >' is listed twice for 'a.cu' (first at line 4)"));
}

TEST(ManifestSources, SameExpressionInTwoSourcesIsFine) {
  TempProject project;
  project.write("a.cu");
  project.write("b.cu");
  const Result<Manifest> manifest = project.read(
      "[[source]]\npath = \"a.cu\"\ninstantiate = [\"f<int>\"]\n[[source]]\npath = \"b.cu\"\ninstantiate = "
      "[\"f<int>\"]\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
}

TEST(ManifestSources, DuplicateVariable) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(fails_with(project.read("[[source]]\npath = \"a.cu\"\nvariables = [\"coeffs\", \"coeffs\"]\n"),
                         project.at(3) + "variable 'coeffs' is listed twice for 'a.cu' (first at line 3)"));
}

TEST(ManifestSources, DefinesAndOptionsFollowTheTopLevelRules) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest =
      project.read("[[source]]\npath = \"a.cu\"\ndefines = [\"2X\"]\noptions = [\"-dlto\"]\n");
  EXPECT_TRUE(fails_with(manifest, project.at(3) + "define '2X' in 'defines' must be NAME or NAME=VALUE"));
  EXPECT_TRUE(fails_with(manifest, project.at(4) + "option '-dlto' in 'options' is set by Kiln"));
}

// A source's include_dirs: the top-level key's forms and checks, for that entry (and each variant's
// entry its own); a directory the top-level list has already is dropped, not refused.
TEST(ManifestSources, IncludeDirsOfASource) {
  TempProject project;
  project.write("a.cu");
  project.make_dir("inc");
  project.make_dir("common");
  const Result<Manifest> manifest = project.read(
      "include_dirs = [\"common\"]\n"
      "[[source]]\npath = \"a.cu\"\nvariant = \"one\"\n"
      "include_dirs = [\"./inc/\", \"<build>/gen\", \"<cuda>/include//cccl\", \"<kiln>\", \"common\"]\n"
      "[[source]]\npath = \"a.cu\"\nvariant = \"two\"\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->include_dirs, (Strings{"common"}));
  EXPECT_EQ(manifest->sources[0].include_dirs, (Strings{"inc", "<build>/gen", "<cuda>/include/cccl", "<kiln>"}));
  EXPECT_TRUE(manifest->sources[1].include_dirs.empty());
}

TEST(ManifestSources, IncludeDirsOfASourceFollowTheTopLevelRules) {
  TempProject project;
  project.write("a.cu");
  project.write("file");
  project.make_dir("inc");
  const std::string absolute = project.root().string();
  const Result<Manifest> manifest = project.read(
      "[[source]]\npath = \"a.cu\"\ninclude_dirs = [\n"
      "  \"missing\",\n  \"file\",\n  \"" + absolute + "\",\n  \"<cudo>/include\",\n  \"<cuda>/../etc\",\n"
      "  \"inc\",\n  \"inc/.\",\n  \"\",\n  3,\n]\n");
  EXPECT_TRUE(fails_with(manifest, project.at(4) + "include directory 'missing' does not exist"));
  EXPECT_TRUE(fails_with(manifest, project.at(5) + "include directory 'file' is not a directory"));
  EXPECT_TRUE(fails_with(manifest, project.at(6) + "include directory '" + absolute +
                                       "' must be relative to the manifest directory or start with '<cuda>/'"));
  EXPECT_TRUE(fails_with(manifest, project.at(7) + "unknown token '<cudo>' in include directory '<cudo>/include'"));
  EXPECT_TRUE(fails_with(manifest, project.at(8) + "include directory '<cuda>/../etc' is outside the CUDA toolkit"));
  EXPECT_TRUE(fails_with(manifest, project.at(10) + "include directory 'inc' is listed twice (first at line 9)"));
  EXPECT_TRUE(fails_with(manifest, project.at(11) + "empty string in 'include_dirs'"));
  EXPECT_TRUE(fails_with(manifest, project.at(12) + "'include_dirs' must be an array of strings; element 9 is an integer"));
  EXPECT_TRUE(fails_with(project.read("[[source]]\npath = \"a.cu\"\ninclude_dirs = \"inc\"\n"),
                         project.at(3) + "'include_dirs' must be an array of strings, not a string"));
}

// Errors name the column of the element, as the top-level key's do.
TEST(ManifestSources, IncludeDirsOfASourceErrorsNameTheColumn) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest = project.read("[[source]]\npath = \"a.cu\"\ninclude_dirs = [\"nope\"]\n");
  ASSERT_FALSE(manifest.ok());
  EXPECT_NE(diagnostic(manifest.error()).find(project.manifest_path().string() + ":3:17: error: include directory 'nope' does not exist"),
            std::string::npos)
      << diagnostic(manifest.error());
}

TEST(ManifestSources, SymlinkedFileIsAccepted) {
  TempProject project;
  project.write("real.cu");
  std::filesystem::create_symlink("real.cu", project.root() / "link.cu");
  const Result<Manifest> manifest = project.read("[[source]]\npath = \"link.cu\"\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->sources[0].path, "link.cu");
}

}  // namespace
}  // namespace kiln::manifest
