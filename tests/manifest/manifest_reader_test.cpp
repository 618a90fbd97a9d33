// read_manifest / parse_manifest: what a valid kiln.toml turns into, and the top-level errors.
#include "temp_project.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace kiln::manifest {
namespace {

using testing::error_of;
using testing::fails_with;
using testing::TempProject;
using testing::without_columns;
using Strings = std::vector<std::string>;

TEST(ManifestReader, ReadsEveryKey) {
  TempProject project;
  project.write("kernels/saxpy.cu");
  project.write("kernels/reduce.cu");
  project.make_dir("include");
  const Result<Manifest> manifest = project.read(R"(
name = "saxpy"
targets = ["sm_80", "sm_90a", "compute_80"]
include_dirs = ["include", "<cuda>/include/cccl"]
defines = ["N=4", "FAST"]
options = ["-use_fast_math", "-std=c++20"]
toolkit_includes = false
compress = true

[[source]]
path = "kernels/saxpy.cu"
instantiate = ["scale<float>", "scale<double>"]
variables = ["coeffs", "my_table"]
defines = ["TILE=16"]
options = ["-maxrregcount=64"]

[[source.template]]
kernel = "block_sum<T, B>"
T = ["float", "double"]
B = [128, 256]

[[source]]
path = "kernels/reduce.cu"
)");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->path, project.manifest_path());
  EXPECT_EQ(manifest->root, project.root());
  EXPECT_EQ(manifest->name, "saxpy");
  EXPECT_EQ(manifest->targets, (Strings{"sm_80", "sm_90a", "compute_80"}));
  EXPECT_EQ(manifest->include_dirs, (Strings{"include", "<cuda>/include/cccl"}));
  EXPECT_EQ(manifest->defines, (Strings{"N=4", "FAST"}));
  EXPECT_EQ(manifest->options, (Strings{"-use_fast_math", "-std=c++20"}));
  EXPECT_FALSE(manifest->toolkit_includes);
  EXPECT_TRUE(manifest->compress);
  ASSERT_EQ(manifest->sources.size(), 2u);
  const SourceEntry& saxpy = manifest->sources[0];
  EXPECT_EQ(saxpy.path, "kernels/saxpy.cu");
  EXPECT_EQ(saxpy.line, 10);
  EXPECT_EQ(saxpy.instantiations,
            (Strings{"scale<float>", "scale<double>", "block_sum<float, 128>", "block_sum<float, 256>",
                     "block_sum<double, 128>", "block_sum<double, 256>"}));
  EXPECT_EQ(saxpy.variables, (Strings{"coeffs", "my_table"}));
  EXPECT_EQ(saxpy.defines, (Strings{"TILE=16"}));
  EXPECT_EQ(saxpy.options, (Strings{"-maxrregcount=64"}));
  const SourceEntry& reduce = manifest->sources[1];
  EXPECT_EQ(reduce.path, "kernels/reduce.cu");
  EXPECT_EQ(reduce.line, 22);
  EXPECT_TRUE(reduce.instantiations.empty());
}

TEST(ManifestReader, AppliesDefaults) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest = project.read("[[source]]\npath = \"a.cu\"\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->name, "proj");  // the manifest directory's name
  EXPECT_TRUE(manifest->targets.empty());
  EXPECT_TRUE(manifest->include_dirs.empty());
  EXPECT_TRUE(manifest->defines.empty());
  EXPECT_TRUE(manifest->options.empty());
  EXPECT_TRUE(manifest->toolkit_includes);
  EXPECT_FALSE(manifest->compress);
  ASSERT_EQ(manifest->sources.size(), 1u);
  EXPECT_EQ(manifest->sources[0].line, 1);
  EXPECT_TRUE(manifest->sources[0].instantiations.empty());
  EXPECT_TRUE(manifest->sources[0].variables.empty());
}

TEST(ManifestReader, DefaultNameIgnoresDotSegments) {
  TempProject project;
  project.write("sub/a.cu");
  project.write("sub/kiln.toml", "[[source]]\npath = \"a.cu\"\n");
  const Result<Manifest> manifest = read_manifest(project.root() / "sub" / "." / "kiln.toml");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->name, "sub");
}

TEST(ManifestReader, EmptyTargetListMeansDefault) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest = project.read("targets = []\n[[source]]\npath = \"a.cu\"\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_TRUE(manifest->targets.empty());
}

TEST(ManifestReader, NormalizesRelativePaths) {
  TempProject project;
  project.write("kernels/saxpy.cu");
  project.make_dir("include");
  project.make_dir("inc2");
  project.make_dir("../common");  // outside the manifest directory: allowed for include directories
  const Result<Manifest> manifest = project.read(R"(
include_dirs = ["include/", "./include/../inc2", "../common", "<cuda>/include//cccl/", "<cuda>"]
[[source]]
path = "./kernels//x/../saxpy.cu"
)");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->include_dirs,
            (Strings{"include", "inc2", "../common", "<cuda>/include/cccl", "<cuda>"}));
  EXPECT_EQ(manifest->sources[0].path, "kernels/saxpy.cu");
}

TEST(ManifestReader, AcceptsInlineSourceTables) {
  TempProject project;
  project.write("a.cu");
  project.write("b.cu");
  const Result<Manifest> manifest =
      project.read(R"(source = [{ path = "a.cu", instantiate = ["k<int>"] }, { path = "b.cu" }])");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  ASSERT_EQ(manifest->sources.size(), 2u);
  EXPECT_EQ(manifest->sources[0].instantiations, (Strings{"k<int>"}));
  EXPECT_EQ(manifest->sources[1].path, "b.cu");
}

TEST(ManifestReader, KeepsNameExpressionsAsWritten) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest = project.read(
      "[[source]]\npath = \"a.cu\"\ninstantiate = [\"scale< float >\", \"ns::f<unsigned int>\"]\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->sources[0].instantiations, (Strings{"scale< float >", "ns::f<unsigned int>"}));
}

TEST(ManifestReader, ParseManifestResolvesAgainstGivenPath) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest = parse_manifest("name = \"x\"\n[[source]]\npath = \"a.cu\"\n",
                                                   project.manifest_path());  // never written to disk
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->root, project.root());
  EXPECT_EQ(manifest->sources[0].path, "a.cu");
}

TEST(ManifestReader, RootOfABareFileNameIsTheCurrentDirectory) {
  // Seen through the error, which shows the path as given and where the source was looked for.
  const Result<Manifest> manifest =
      parse_manifest("name = \"x\"\n[[source]]\npath = \"kiln-no-such-file.cu\"\n", "kiln.toml");
  EXPECT_TRUE(fails_with(manifest,
                         "kiln.toml:3: source path 'kiln-no-such-file.cu' does not exist "
                         "(looked for ./kiln-no-such-file.cu)"));
}

// --- Errors that are not about one [[source]] -------------------------------------------------

TEST(ManifestErrors, MissingFile) {
  TempProject project;
  const Result<Manifest> manifest = read_manifest(project.manifest_path());
  EXPECT_TRUE(fails_with(manifest,
                         "cannot read " + project.manifest_path().string() + ": No such file or directory"));
}

TEST(ManifestErrors, ManifestIsADirectory) {
  TempProject project;
  project.make_dir("kiln.toml");
  EXPECT_TRUE(fails_with(read_manifest(project.manifest_path()), ": Is a directory"));
}

TEST(ManifestErrors, SyntaxErrorHasLineAndColumn) {
  TempProject project;
  const Result<Manifest> manifest = project.read("name = \"x\"\n\ntargets = [\"sm_80\" \"sm_90\"]\n");
  EXPECT_TRUE(fails_with(manifest, project.manifest_path().string() + ":3:20: "));
}

TEST(ManifestErrors, KeyDefinedTwiceIsASyntaxError) {
  TempProject project;
  const Result<Manifest> manifest = project.read("compress = true\ncompress = false\n");
  EXPECT_TRUE(fails_with(manifest, project.manifest_path().string() + ":2:"));
  EXPECT_TRUE(fails_with(manifest, "compress"));
}

TEST(ManifestErrors, UnknownKeySuggestsNearestKnownKey) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest =
      project.read("name = \"x\"\ntragets = [\"sm_80\"]\n[[source]]\npath = \"a.cu\"\n");
  EXPECT_TRUE(fails_with(manifest, project.at(2) + "unknown key 'tragets' (did you mean 'targets'?)"));
}

TEST(ManifestErrors, UnknownKeyFarFromAllKeysHasNoSuggestion) {
  TempProject project;
  project.write("a.cu");
  const std::string message = error_of(project.read("colour = 1\n[[source]]\npath = \"a.cu\"\n"));
  EXPECT_NE(message.find(project.at(1) + "unknown key 'colour'"), std::string::npos) << message;
  EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
}

TEST(ManifestErrors, SourceKeyAtTopLevelSaysWhereItBelongs) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(fails_with(project.read("path = \"a.cu\"\n[[source]]\npath = \"a.cu\"\n"),
                         project.at(1) + "unknown key 'path' (it belongs in a [[source]] table)"));
}

// Top-level 'instantiate' and 'variables': the package's names, for the sources that define them
// (plan/discovery.hpp); 'cmake_call': where kiln_add_cache() was called.
TEST(ManifestReader, ReadsThePackagesNamesAndTheCMakeCall) {
  TempProject project;
  project.write("a.cu");
  project.write("b.cu");
  const Result<Manifest> manifest = project.read(
      "instantiate = [\"scale<float>\",\n  \"ns::sum<int, 4>\"]\nvariables = [\"table\"]\n"
      "cmake_call = \"sub/CMakeLists.txt:12\"\n[[source]]\npath = \"a.cu\"\n[[source]]\npath = \"b.cu\"\n");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->instantiations, (Strings{"scale<float>", "ns::sum<int, 4>"}));
  ASSERT_EQ(manifest->instantiation_positions.size(), 2u);
  EXPECT_EQ(manifest->instantiation_positions[1].line, 2);
  EXPECT_EQ(manifest->instantiation_positions[1].column, 3);
  EXPECT_EQ(manifest->variables, (Strings{"table"}));
  ASSERT_EQ(manifest->variable_positions.size(), 1u);
  EXPECT_EQ(manifest->variable_positions[0].line, 3);
  ASSERT_TRUE(manifest->cmake_call.has_value());
  EXPECT_EQ(manifest->cmake_call->file, "sub/CMakeLists.txt");
  EXPECT_EQ(manifest->cmake_call->line, 12);
  for (const SourceEntry& source : manifest->sources) EXPECT_TRUE(source.instantiations.empty());

  // The call's file alone, where its line could not be told; none at all for a hand-written manifest.
  const Result<Manifest> file_only = project.read("cmake_call = \"CMakeLists.txt\"\n[[source]]\npath = \"a.cu\"\n");
  ASSERT_TRUE(file_only.ok()) << file_only.error().message;
  EXPECT_EQ(file_only->cmake_call->file, "CMakeLists.txt");
  EXPECT_EQ(file_only->cmake_call->line, 0);
  const Result<Manifest> plain = project.read("[[source]]\npath = \"a.cu\"\n");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->cmake_call.has_value());
  EXPECT_TRUE(plain->instantiations.empty());
}

// A manifest kiln_add_cache() generated: errors in the values its call gave are said at the call, under
// CMake's keywords (the source properties for a [[source]]'s), once, without the manifest's lines.
TEST(ManifestErrors, AGeneratedManifestsErrorsAreAtTheCMakeCall) {
  TempProject project;
  project.write("a.cu");
  const std::string message = without_columns(diagnostic(
      project
          .read("name = \"k\"\ndefines = [\"1BAD\"]\ninstantiate = [\"f<int>\", \"f< int>\"]\n"
                "cmake_call = \"CMakeLists.txt:12\"\n[[source]]\npath = \"a.cu\"\noptions = [\"-arch=sm_90\"]\n")
          .error()));
  EXPECT_NE(message.find("CMakeLists.txt:12: DEFINES of cache 'k': define '1BAD' in DEFINES must be NAME or "
                         "NAME=VALUE"), std::string::npos) << message;
  EXPECT_NE(message.find("CMakeLists.txt:12: INSTANTIATE of cache 'k': 'f< int>' is listed twice in INSTANTIATE"),
            std::string::npos) << message;
  EXPECT_NE(message.find("CMakeLists.txt:12: source property KILN_OPTIONS of 'a.cu' (cache 'k'): option "
                         "'-arch=sm_90' in KILN_OPTIONS is set by Kiln for each target; list targets in TARGETS or "
                         "ARCHITECTURES"), std::string::npos) << message;
  EXPECT_EQ(message.find("kiln.toml"), std::string::npos) << message;
  // Without 'cmake_call', at the manifest's lines as ever.
  EXPECT_TRUE(fails_with(project.read("defines = [\"1BAD\"]\n[[source]]\npath = \"a.cu\"\n"),
                         project.at(1) + "define '1BAD' in 'defines' must be NAME or NAME=VALUE"));
}

TEST(ManifestErrors, ThePackagesNamesListedTwiceOrMistyped) {
  TempProject project;
  project.write("a.cu");
  const std::string message = error_of(project.read(
      "instantiate = [\"f<int, 2>\", \"f< int,2 >\"]\nvariables = [\"t\", \"t\"]\ncmake_call = \":12\"\n"
      "[[source]]\npath = \"a.cu\"\n"));
  EXPECT_NE(message.find(project.at(1) + "'f< int,2 >' is listed twice in 'instantiate' (first at line 1)"),
            std::string::npos) << message;
  EXPECT_NE(message.find(project.at(2) + "'t' is listed twice in 'variables' (first at line 2)"), std::string::npos)
      << message;
  EXPECT_NE(message.find(project.at(3) + "'cmake_call' ':12' names no file"), std::string::npos) << message;
  EXPECT_TRUE(fails_with(project.read("instantiate = \"k\"\n[[source]]\npath = \"a.cu\"\n"),
                         project.at(1) + "'instantiate' must be an array of strings, not a string"));
  EXPECT_TRUE(fails_with(project.read("cmake_call = 12\n[[source]]\npath = \"a.cu\"\n"),
                         project.at(1) + "'cmake_call' must be a string"));
}

TEST(ManifestErrors, WrongTypes) {
  TempProject project;
  project.write("a.cu");
  const Result<Manifest> manifest = project.read(R"(name = 3
targets = "sm_90"
include_dirs = [["include"]]
defines = "N=4"
options = { fast = true }
toolkit_includes = "yes"
compress = 1
[[source]]
path = "a.cu"
)");
  EXPECT_TRUE(fails_with(manifest, project.at(1) + "'name' must be a string, not an integer"));
  EXPECT_TRUE(fails_with(manifest, project.at(2) + "'targets' must be an array of strings, not a string"));
  EXPECT_TRUE(fails_with(
      manifest, project.at(3) + "'include_dirs' must be an array of strings; element 1 is an array"));
  EXPECT_TRUE(fails_with(manifest, project.at(4) + "'defines' must be an array of strings, not a string"));
  EXPECT_TRUE(fails_with(manifest, project.at(5) + "'options' must be an array of strings, not a table"));
  EXPECT_TRUE(fails_with(manifest, project.at(6) + "'toolkit_includes' must be true or false, not a string"));
  EXPECT_TRUE(fails_with(manifest, project.at(7) + "'compress' must be true or false, not an integer"));
}

TEST(ManifestErrors, SourceMustBeAnArrayOfTables) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(fails_with(project.read("[source]\npath = \"a.cu\"\n"),
                         project.at(1) + "'source' must be an array of tables ([[source]]), not a table"));
  EXPECT_TRUE(
      fails_with(project.read("source = [\"a.cu\"]\n"),
                 project.at(1) + "'source' must be an array of tables ([[source]]); element 1 is a string"));
}

TEST(ManifestErrors, NoSource) {
  TempProject project;
  EXPECT_TRUE(
      fails_with(project.read("name = \"x\"\n"), project.manifest_path().string() + ": no [[source]] table"));
  EXPECT_TRUE(
      fails_with(project.read("source = []\n"), project.manifest_path().string() + ": no [[source]] table"));
}

TEST(ManifestErrors, EmptyName) {
  TempProject project;
  project.write("a.cu");
  EXPECT_TRUE(fails_with(project.read("name = \"\"\n[[source]]\npath = \"a.cu\"\n"),
                         project.at(1) + "'name' is empty"));
}

TEST(ManifestErrors, ReportsEveryErrorInFileOrder) {
  TempProject project;
  project.write("a.cu");
  // The reader looks at 'name' before 'targets' and at keys in sorted order, but the messages come
  // out in line order.
  const std::string message = error_of(project.read(R"(targets = "sm_80"
name = 3
[[source]]
path = "a.cu"
pth = "b.cu"
[[source]]
path = "missing.cu"
)"));
  const std::vector<std::string> expected = {
      project.at(1) + "'targets' must be an array of strings, not a string",
      project.at(2) + "'name' must be a string, not an integer",
      project.at(5) + "unknown key 'pth' in [[source]] (did you mean 'path'?)",
      project.at(7) + "source path 'missing.cu' does not exist",
  };
  std::size_t position = 0;
  for (const std::string& line : expected) {
    const std::size_t found = message.find(line);
    ASSERT_NE(found, std::string::npos) << message << "\nlacks: " << line;
    EXPECT_GE(found, position) << message << "\nout of order: " << line;
    position = found;
  }
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 3) << message;
}

}  // namespace
}  // namespace kiln::manifest
