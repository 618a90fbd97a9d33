// Manifest errors as compilers write them (issue 12, point 4): "file:line:col: error: message", at the
// entry itself (an `instantiate` element, a target), with did-you-mean for targets, and package names
// that cannot be file names refused.
#include "temp_project.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kiln::manifest {
namespace {

using testing::TempProject;

std::string message_of(const Result<Manifest>& result) {
  EXPECT_FALSE(result.ok());
  return result.ok() ? std::string() : diagnostic(result.error());   // as `kiln build` prints it
}

TEST(ManifestPositions, ErrorsAreFileLineColumnError) {
  TempProject project;
  project.write("a.cu");
  const std::string message =
      message_of(project.read("name = \"x\"\ntargets = [\"sm_80\", \"sm_99z\"]\n[[source]]\npath = \"a.cu\"\n"));
  EXPECT_EQ(message.rfind(project.manifest_path().string() + ":2:21: error: invalid target 'sm_99z'", 0), 0u)
      << message;
}

TEST(ManifestPositions, ErrorForTheWholeFileHasNoLine) {
  TempProject project;
  EXPECT_EQ(message_of(project.read("name = \"x\"\n")),
            project.manifest_path().string() +
                ": error: no [[source]] table: list at least one source file ([[source]] path = \"...\")");
}

TEST(ManifestPositions, UnknownKeyHasItsColumn) {
  TempProject project;
  project.write("a.cu");
  const std::string message = message_of(project.read("[[source]]\npath = \"a.cu\"\n  pth = 1\n"));
  EXPECT_NE(message.find(":3:3: error: unknown key 'pth' in [[source]] (did you mean 'path'?)"), std::string::npos)
      << message;
}

TEST(ManifestPositions, InstantiationsRecordTheirEntries) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest = project.read(
      "[[source]]\npath = \"a.cu\"\ninstantiate = [\"f<int>\",\n               \"f<flaot>\"]\n"
      "[[source.template]]\nkernel = \"g<T>\"\nT = [\"int\"]\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const SourceEntry& source = manifest->sources.at(0);
  ASSERT_EQ(source.instantiations, (std::vector<std::string>{"f<int>", "f<flaot>", "g<int>"}));
  ASSERT_EQ(source.instantiation_positions.size(), 3u);
  EXPECT_EQ(source.instantiation_positions[0].line, 3);
  EXPECT_EQ(source.instantiation_positions[0].column, 16);
  EXPECT_EQ(source.instantiation_positions[1].line, 4);
  EXPECT_EQ(source.instantiation_positions[1].column, 16);
  EXPECT_EQ(source.instantiation_positions[2].line, 6);   // the template's `kernel` pattern
  EXPECT_EQ(source.instantiation_positions[2].column, 10);
}

TEST(ManifestPositions, TargetsSuggestTheirSpelling) {
  TempProject project;
  project.write("a.cu");
  const std::string message = message_of(
      project.read("targets = [\"sm90\", \"9.0a\", \"sm_90A\", \"compute90\"]\n[[source]]\npath = \"a.cu\"\n"));
  EXPECT_NE(message.find(":1:12: error: invalid target 'sm90' in 'targets' (did you mean 'sm_90'?)"),
            std::string::npos) << message;
  EXPECT_NE(message.find("invalid target '9.0a' in 'targets' (did you mean 'sm_90a'?)"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid target 'sm_90A' in 'targets' (did you mean 'sm_90a'?)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("invalid target 'compute90' in 'targets' (did you mean 'compute_90'?)"), std::string::npos)
      << message;
}

TEST(ManifestPositions, PackageNamesThatCannotBeFilesAreRefused) {
  for (const std::string name : {"a/b", "a:b", "..", ".", "a\\\\b"}) {
    TempProject project;
    project.write("a.cu");
    const std::string message = message_of(project.read("name = \"" + name + "\"\n[[source]]\npath = \"a.cu\"\n"));
    EXPECT_NE(message.find(":1:8: error: package name '"), std::string::npos) << message;
    EXPECT_NE(message.find("cannot be a file name"), std::string::npos) << message;
  }
}

TEST(ManifestPositions, CannotReadIsAKilnError) {
  TempProject project;
  EXPECT_EQ(message_of(read_manifest(project.manifest_path())),
            "kiln: error: cannot read " + project.manifest_path().string() + ": No such file or directory");
}

}  // namespace
}  // namespace kiln::manifest
