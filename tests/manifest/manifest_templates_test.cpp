// [[source.template]]: cross products through the reader, and their errors.
#include "temp_project.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::manifest {
namespace {

using testing::error_of;
using testing::fails_with;
using testing::TempProject;
using Strings = std::vector<std::string>;

// One source a.cu whose body (after path) is `body`; the first line of `body` is line 3.
Result<Manifest> read_source(const TempProject& project, const std::string& body) {
  project.write("a.cu");
  return project.read("[[source]]\npath = \"a.cu\"\n" + body);
}

Strings expressions(const Result<Manifest>& manifest) {
  if (!manifest.ok()) {
    ADD_FAILURE() << manifest.error().message;
    return {};
  }
  return manifest->sources.at(0).instantiations;
}

TEST(ManifestTemplates, PlaceholdersExpandInPatternOrderNotKeyOrder) {
  TempProject project;
  // TOML++ sorts keys (B before T, Z before A...); the pattern order must win.
  const Result<Manifest> manifest = read_source(project, R"([[source.template]]
kernel = "k<Z, B, A>"
A = [1, 2]
B = ["x", "y"]
Z = [true]
)");
  EXPECT_EQ(expressions(manifest),
            (Strings{"k<true, x, 1>", "k<true, x, 2>", "k<true, y, 1>", "k<true, y, 2>"}));
}

TEST(ManifestTemplates, TemplatesFollowInstantiateInOrder) {
  TempProject project;
  const Result<Manifest> manifest = read_source(project, R"(instantiate = ["scale<float>"]
[[source.template]]
kernel = "f<T>"
T = ["int"]
[[source.template]]
kernel = "g<T>"
T = ["char", "long"]
)");
  EXPECT_EQ(expressions(manifest), (Strings{"scale<float>", "f<int>", "g<char>", "g<long>"}));
}

TEST(ManifestTemplates, IntegersAndBooleansAreSpelledAsInCpp) {
  TempProject project;
  const Result<Manifest> manifest =
      read_source(project, "[[source.template]]\nkernel = \"k<N, F>\"\nN = [-1, 0x10, 1_000]\nF = [false]\n");
  EXPECT_EQ(expressions(manifest), (Strings{"k<-1, false>", "k<16, false>", "k<1000, false>"}));
}

TEST(ManifestTemplates, MixedValueTypesInOneList) {
  TempProject project;
  const Result<Manifest> manifest =
      read_source(project, "[[source.template]]\nkernel = \"k<V>\"\nV = [\"N\", 3, true]\n");
  EXPECT_EQ(expressions(manifest), (Strings{"k<N>", "k<3>", "k<true>"}));
}

TEST(ManifestTemplates, SubstitutesWholeIdentifiersOnly) {
  TempProject project;
  const Result<Manifest> manifest = read_source(
      project, "[[source.template]]\nkernel = \"tile<Tile, T, T_x, ns::T, 0xT>\"\nT = [\"int\"]\n");
  EXPECT_EQ(expressions(manifest), (Strings{"tile<Tile, int, T_x, ns::int, 0xT>"}));
}

TEST(ManifestTemplates, NoPlaceholdersAddsThePatternAsIs) {
  TempProject project;
  EXPECT_EQ(expressions(read_source(project, "[[source.template]]\nkernel = \"k<int>\"\n")),
            (Strings{"k<int>"}));
}

TEST(ManifestTemplates, KeyNotInPattern) {
  TempProject project;
  const Result<Manifest> manifest =
      read_source(project, "[[source.template]]\nkernel = \"k<Tile>\"\nTile = [1]\nSize = [2]\n");
  EXPECT_TRUE(fails_with(manifest, project.at(6) +
                                       "unknown key 'Size' in [[source.template]]: it does not occur "
                                       "in the kernel pattern 'k<Tile>'"));
  EXPECT_EQ(error_of(manifest).find("did you mean"), std::string::npos);
}

TEST(ManifestTemplates, KeyNotInPatternSuggestsAPlaceholder) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_source(project, "[[source.template]]\nkernel = \"k<Tile>\"\nTiel = [1]\n"),
                         project.at(5) +
                             "unknown key 'Tiel' in [[source.template]]: it does not occur in the "
                             "kernel pattern 'k<Tile>' (did you mean 'Tile'?)"));
}

TEST(ManifestTemplates, MissingOrMisspeltKernel) {
  TempProject project;
  const Result<Manifest> manifest = read_source(project, "[[source.template]]\nkernal = \"k<T>\"\nT = [1]\n");
  EXPECT_TRUE(fails_with(manifest, project.at(3) + "[[source.template]] has no 'kernel' pattern"));
  EXPECT_TRUE(fails_with(
      manifest, project.at(4) + "unknown key 'kernal' in [[source.template]] (did you mean 'kernel'?)"));
  // Without a pattern, T cannot be judged and is not reported.
  EXPECT_EQ(error_of(manifest).find("'T'"), std::string::npos);
}

TEST(ManifestTemplates, KernelOfWrongType) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_source(project, "[[source.template]]\nkernel = [\"k<T>\"]\nT = [1]\n"),
                         project.at(4) + "'kernel' must be a string, not an array"));
}

TEST(ManifestTemplates, EmptyValueList) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_source(project, "[[source.template]]\nkernel = \"k<T>\"\nT = []\n"),
                         project.at(5) + "placeholder 'T' has no values"));
}

TEST(ManifestTemplates, ValueListOfWrongType) {
  TempProject project;
  EXPECT_TRUE(
      fails_with(read_source(project, "[[source.template]]\nkernel = \"k<T>\"\nT = \"float\"\n"),
                 project.at(5) + "placeholder 'T' must be an array of values (T = [...]), not a string"));
}

TEST(ManifestTemplates, ValuesOfWrongType) {
  TempProject project;
  const Result<Manifest> manifest = read_source(
      project, "[[source.template]]\nkernel = \"k<T>\"\nT = [\n  1.5,\n  \"\",\n  { a = 1 },\n]\n");
  EXPECT_TRUE(fails_with(manifest, project.at(6) + "placeholder 'T': element 1 is a float; values must be "
                                                   "non-empty strings, integers or booleans"));
  EXPECT_TRUE(fails_with(manifest, project.at(7) + "placeholder 'T': element 2 is an empty string"));
  EXPECT_TRUE(fails_with(manifest, project.at(8) + "placeholder 'T': element 3 is a table"));
}

TEST(ManifestTemplates, DuplicateValue) {
  TempProject project;
  EXPECT_TRUE(
      fails_with(read_source(project, "[[source.template]]\nkernel = \"k<T>\"\nT = [\"float\", \"float\"]\n"),
                 project.at(5) + "placeholder 'T' lists 'float' twice"));
}

TEST(ManifestTemplates, OverlapWithInstantiateNamesBothLines) {
  TempProject project;
  EXPECT_TRUE(fails_with(
      read_source(project, R"(instantiate = ["k<float,128>"]
[[source.template]]
kernel = "k<T, B>"
T = ["float"]
B = [128]
)"),
      project.at(5) + "name expression 'k<float, 128>' is listed twice for 'a.cu' (first at line 3)"));
}

TEST(ManifestTemplates, TooManyExpansions) {
  TempProject project;
  const std::string ten = " = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n";
  EXPECT_TRUE(
      fails_with(read_source(project, "[[source.template]]\nkernel = \"k<A, B, C, D, E>\"\nA" + ten + "B" +
                                          ten + "C" + ten + "D" + ten + "E" + ten),
                 project.at(4) + "template 'k<A, B, C, D, E>' expands to more than 10000 expressions"));
}

}  // namespace
}  // namespace kiln::manifest
