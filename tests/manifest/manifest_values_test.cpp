// The rules for values in lists: targets, include directories, defines, options, empty strings.
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

// A manifest with one valid source and `top` as its top-level keys.
Result<Manifest> read_with(const TempProject& project, const std::string& top) {
  project.write("a.cu");
  return project.read(top + "\n[[source]]\npath = \"a.cu\"\n");
}

TEST(ManifestValues, InvalidTargetsListWhatIsAccepted) {
  TempProject project;
  // Near misses also get a suggestion (manifest_positions_test.cpp), before what is accepted.
  for (const char* target : {"sm90", "sm_090", "SM_90", "sm_9", "sm_90x", "compute_", "gfx90a"}) {
    const Result<Manifest> manifest = read_with(project, std::string("targets = [\"") + target + "\"]");
    EXPECT_TRUE(fails_with(manifest, project.at(1) + "invalid target '" + target + "' in 'targets'"));
    EXPECT_TRUE(fails_with(manifest, ": expected sm_XY, sm_XYa, sm_XYf, compute_XY, compute_XYa or compute_XYf"));
  }
}

TEST(ManifestValues, AcceptsEveryTargetForm) {
  TempProject project;
  const Result<Manifest> manifest = read_with(
      project, R"(targets = ["sm_75", "sm_90a", "sm_100f", "compute_80", "compute_90a", "compute_120f"])");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->targets,
            (Strings{"sm_75", "sm_90a", "sm_100f", "compute_80", "compute_90a", "compute_120f"}));
}

TEST(ManifestValues, DuplicateTarget) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_with(project, "targets = [\n  \"sm_80\",\n  \"sm_90\",\n  \"sm_80\",\n]"),
                         project.at(4) + "target 'sm_80' is listed twice in 'targets' (first at line 2)"));
}

TEST(ManifestValues, EmptyStringsInLists) {
  TempProject project;
  for (const char* key : {"targets", "include_dirs", "defines", "options"}) {
    EXPECT_TRUE(fails_with(read_with(project, std::string(key) + " = [\" \"]"),
                           project.at(1) + "empty string in '" + key + "'"));
  }
  for (const char* key : {"instantiate", "variables", "defines", "options"}) {
    EXPECT_TRUE(fails_with(project.read(std::string("[[source]]\npath = \"a.cu\"\n") + key + " = [\"\"]\n"),
                           project.at(3) + "empty string in '" + key + "'"));
  }
}

TEST(ManifestValues, InvalidDefines) {
  TempProject project;
  for (const char* define : {"1N", "=4", "F(x)=x", "A B", "N-1=2"}) {
    EXPECT_TRUE(fails_with(read_with(project, std::string("defines = [\"") + define + "\"]"),
                           project.at(1) + "define '" + define +
                               "' in 'defines' must be NAME or NAME=VALUE, with NAME an identifier"));
  }
}

TEST(ManifestValues, ValidDefines) {
  TempProject project;
  const Result<Manifest> manifest = read_with(project, R"(defines = ["N", "_N2=", "X=a=b", "S=\"a b\""])");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->defines, (Strings{"N", "_N2=", "X=a=b", "S=\"a b\""}));
}

// -rdc is the user's to give now: it puts sources into a device link group (the plan's business).
TEST(ManifestValues, RelocatableDeviceCodeIsAccepted) {
  TempProject project;
  for (const char* list : {"'-rdc=true'", "'--relocatable-device-code=false'", "'-rdc', 'true'"}) {
    const Result<Manifest> manifest = read_with(project, std::string("options = [") + list + "]");
    EXPECT_TRUE(manifest.ok()) << list << ": " << manifest.error().message;
  }
  EXPECT_TRUE(fails_with(read_with(project, "options = ['-rdc=maybe']"), project.at(1) + "option '-rdc=maybe'"));
}

TEST(ManifestValues, OptionsKilnSetsAreRejected) {
  TempProject project;
  for (const char* option : {"-arch=sm_90", "-arch", "--gpu-architecture=compute_90", "-arch sm_90", "-dlto",
                             "--dlink-time-opt", "-dc",
                             "-frandom-seed=1", "-fdevice-time-trace=t.json", "-time=t.csv", "--time=t.csv",
                             "-Iinclude", "--include-path=include"}) {
    EXPECT_TRUE(fails_with(read_with(project, std::string("options = ['") + option + "']"),
                           project.at(1) + "option '" + option + "' in 'options' is set by Kiln"))
        << option;
  }
}

// A pre-included header is found as #include finds one: a path that leaves the project would read any
// file (and echo it in errors), as an include directory outside it would. In every spelling.
TEST(ManifestValues, APreIncludeOutsideTheProjectIsRejected) {
  TempProject project;
  for (const char* options : {"'--pre-include=/etc/hostname'", "'-include', '../up.h'", "'--pre-include', 'a/../../x.h'",
                              "'-include=/etc/hostname'"}) {
    EXPECT_TRUE(fails_with(read_with(project, std::string("options = [") + options + "]"),
                           "in 'options' pre-includes a header outside the project"))
        << options;
  }
  const std::string inside = "'" + (project.root() / "include" / "config.h").string() + "'";
  for (const std::string& options : {std::string("'--pre-include=config.h'"), std::string("'-include', 'sub/dir/config.h'"),
                                    std::string("'-include=a/./b.h'"), "'-include', " + inside}) {
    const auto manifest = read_with(project, "options = [" + options + "]");
    EXPECT_TRUE(manifest.ok()) << options << ": " << manifest.error().message;
  }
}

TEST(ManifestValues, ArchOptionPointsToTargets) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_with(project, "options = [\"-arch=sm_90\"]"), "list targets in 'targets'"));
}

TEST(ManifestValues, OrdinaryOptionsPass) {
  TempProject project;
  // Options are found by whole name: "-dopt"... no; "-diag-warn" shares a prefix with "-dc".
  const Strings options = {"-use_fast_math", "-std=c++20",   "--maxrregcount=64", "-diag-warn=177",
                           "-lineinfo",      "--fmad=false", "-default-device",   "-restrict"};
  std::string list;
  for (const std::string& option : options) list += (list.empty() ? "" : ", ") + ("\"" + option + "\"");
  const Result<Manifest> manifest = read_with(project, "options = [" + list + "]");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->options, options);
}

TEST(ManifestValues, MissingIncludeDirectory) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_with(project, "include_dirs = [\"include\"]"),
                         project.at(1) + "include directory 'include' does not exist"));
}

TEST(ManifestValues, IncludeDirectoryThatIsAFile) {
  TempProject project;
  project.write("include");
  EXPECT_TRUE(fails_with(read_with(project, "include_dirs = [\"include\"]"),
                         project.at(1) + "include directory 'include' is not a directory"));
}

TEST(ManifestValues, AbsoluteIncludeDirectory) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_with(project, "include_dirs = [\"" + project.root().string() + "\"]"),
                         "must be relative to the manifest directory or start with '<cuda>/'"));
}

TEST(ManifestValues, OnlyCudaBuildAndKilnAreKnownTokens) {
  TempProject project;
  for (const char* dir : {"<cudo>/include", "<CUDA>/include", "<cuda>include", "<cuda", "<>/x", "<root>/x", "<build>gen"}) {
    EXPECT_TRUE(fails_with(read_with(project, std::string("include_dirs = [\"") + dir + "\"]"),
                           project.at(1) + "unknown token"))
        << dir;
  }
  EXPECT_TRUE(fails_with(read_with(project, "include_dirs = [\"<cudo>/include\"]"),
                         "unknown token '<cudo>' in include directory '<cudo>/include'"));
}

TEST(ManifestValues, CudaTokenCannotLeaveTheToolkit) {
  TempProject project;
  EXPECT_TRUE(fails_with(read_with(project, "include_dirs = [\"<cuda>/../etc\"]"),
                         project.at(1) + "include directory '<cuda>/../etc' is outside the CUDA toolkit"));
}

// Directories that depend on where the build or Kiln lies are named, never spelt from the project
// (util/named_roots.hpp): the manifest keeps them as written, and need not find them.
TEST(ManifestValues, BuildAndKilnTokensNameDirectoriesKnownWhenBuilding) {
  TempProject project;
  const Result<Manifest> read = read_with(project, "include_dirs = [\"<build>//gen/\", \"<kiln>\", \"<cuda>/include\"]");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->include_dirs, (std::vector<std::string>{"<build>/gen", "<kiln>", "<cuda>/include"}));
  EXPECT_TRUE(fails_with(read_with(project, "include_dirs = [\"<build>/../x\"]"),
                         project.at(1) + "include directory '<build>/../x' is outside the build directory"));
}

TEST(ManifestValues, DuplicateIncludeDirectory) {
  TempProject project;
  project.make_dir("include");
  EXPECT_TRUE(fails_with(read_with(project, "include_dirs = [\"include\", \"./include/\"]"),
                         project.at(1) + "include directory 'include' is listed twice"));
}

}  // namespace
}  // namespace kiln::manifest

namespace kiln::manifest {
namespace {

TEST(ManifestValues, KernelsPerImageDefaultsTopLevelAndPerSource) {
  testing::TempProject project;
  project.write("a.cu");
  project.write("b.cu");
  const Result<Manifest> plain = project.read("[[source]]\npath = \"a.cu\"\n");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->kernels_per_image, k_default_kernels_per_image);
  EXPECT_FALSE(plain->sources[0].kernels_per_image.has_value());
  const Result<Manifest> set = project.read(
      "kernels_per_image = 0\n[[source]]\npath = \"a.cu\"\n[[source]]\npath = \"b.cu\"\nkernels_per_image = 8\n");
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->kernels_per_image, 0u);
  EXPECT_FALSE(set->sources[0].kernels_per_image.has_value());
  EXPECT_EQ(set->sources[1].kernels_per_image, 8u);
}

TEST(ManifestValues, KernelsPerImageMustBeACountInRange) {
  testing::TempProject project;
  project.write("a.cu");
  const auto read = [&](const std::string& top, const std::string& in_source) {
    return project.read(top + "\n[[source]]\npath = \"a.cu\"\n" + in_source + "\n");
  };
  EXPECT_TRUE(testing::fails_with(read("kernels_per_image = -1", ""),
                                  project.at(1) + "'kernels_per_image' must be from 0 to 1000000, not -1"));
  EXPECT_TRUE(testing::fails_with(read("kernels_per_image = 1000001", ""), "must be from 0 to 1000000, not 1000001"));
  EXPECT_TRUE(testing::fails_with(read("kernels_per_image = \"32\"", ""),
                                  "'kernels_per_image' must be an integer, not a string"));
  EXPECT_TRUE(testing::fails_with(read("", "kernels_per_image = 2.5"),
                                  project.at(4) + "'kernels_per_image' must be an integer, not a float"));
}

}  // namespace
}  // namespace kiln::manifest
