// Names are data: sources, headers, include directories and output directories whose names hold what a
// shell reads ($( ), backticks, ';', '&', '|', quotes, spaces, '*') build correctly on both routes,
// nvcc's (which runs its steps through a shell) and NVRTC's, and never run anything. The only name
// refused is one the depfile cannot hold (a line break), and only while a depfile is written.
#include "compile/nvcc_compiler.hpp"
#include "kiln_runner.hpp"
#include "package_kernels.hpp"

#include <gtest/gtest.h>

#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using Names = std::set<std::string>;

struct NameClass {
  const char* label = nullptr;
  std::string text{};     // what every name of the project holds; the commands in it would make PWNED
  std::string header{};   // the headers' where it differs: #include "..." ends at a '"', escapes none
};

const NameClass k_classes[] = {
    {"CommandSubstitution", "$(touch PWNED)"},
    {"Backticks", "`touch PWNED`"},
    {"Semicolon", "x;touch PWNED;y"},
    {"Ampersand", "x&touch PWNED&y"},
    {"Pipe", "x|touch PWNED|y"},
    {"Quotes", "'\"$(touch PWNED)\"'", "'$(touch PWNED)'"},
    {"Spaces", "a b  c"},
    {"Star", "*"},
};


// Every file under `dir` named PWNED: what a command in a name would have made.
std::vector<fs::path> markers_under(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename() == "PWNED") found.push_back(e.path());
  return found;
}

std::string toml_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A header name as #include "..." spells it: no escapes there, the bytes as they are.
std::string quoted(const std::string& text) { return "\"" + text + "\""; }

// p/: a host source (nvcc compiles it) and a device-only one (NVRTC), each named with `name`, each
// including a header next to it and one from an include directory, both named with `header` (by
// default `name` too).
fs::path write_project(const fs::path& p, const std::string& name, std::string header = {}) {
  if (header.empty()) header = name;
  const std::string include_dir = "include " + header;
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\ninclude_dirs = [" + toml_string(include_dir) + "]\n" +
                                  "[[source]]\npath = " + toml_string("kernels/host " + name + ".cu") + "\n" +
                                  "[[source]]\npath = " + toml_string("kernels/device " + name + ".cu") + "\n");
  write_text(p / "kernels" / ("near " + header + ".cuh"), "#define NEAR_VALUE 3\n");
  write_text(p / include_dir / ("lib " + header + ".cuh"), "#define LIB_VALUE 4\n");
  const std::string includes = "#include " + quoted("near " + header + ".cuh") + "\n#include <lib " + header + ".cuh>\n";
  write_text(p / "kernels" / ("host " + name + ".cu"),
             includes + "#include <cstdio>\n__global__ void host_k(int* x) { x[0] = NEAR_VALUE + LIB_VALUE; }\n"
                        "void launch(int* x) { host_k<<<1, 1>>>(x); std::printf(\"launched\\n\"); }\n");
  write_text(p / "kernels" / ("device " + name + ".cu"),
             includes + "extern \"C\" __global__ void device_k(int* x) { x[0] = NEAR_VALUE * LIB_VALUE; }\n");
  return p;
}

class BuildFileNames : public ::testing::TestWithParam<NameClass> {};

TEST_P(BuildFileNames, SourcesHeadersAndOutputDirectoriesBuildOnBothRoutesAndRunNothing) {
  ScratchDir dir;
  const std::string& name = GetParam().text;
  const std::string& header = GetParam().header.empty() ? name : GetParam().header;
  const fs::path p = write_project(dir.path() / "p", name, header);
  const fs::path output = fs::path("out " + name) / "app.kiln";
  fs::create_directories(dir.path() / output.parent_path());
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", output.string()}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // nvcc and its shells run in p/, which is plain: a command there would have left p/PWNED.
  EXPECT_EQ(markers_under(dir.path()), std::vector<fs::path>{}) << "a name ran a command";
  EXPECT_EQ(kernels_of(dir.path() / output), (Names{"host_k", "device_k"}));
  EXPECT_EQ(run_kiln({"verify", output.string()}, dir.path()).exit_code, 0);
  // The depfile names every file each route read, as Make and Ninja read them back.
  const std::vector<std::string> deps = compile::depfile_prerequisites(read_text(dir.path() / (output.string() + ".d")));
  const std::set<std::string> listed(deps.begin(), deps.end());
  for (const fs::path& file : {p / "kiln.toml", p / "kernels" / ("host " + name + ".cu"),
                               p / "kernels" / ("device " + name + ".cu"), p / "kernels" / ("near " + header + ".cuh"),
                               p / ("include " + header) / ("lib " + header + ".cuh")})
    EXPECT_EQ(listed.count(fs::absolute(file).lexically_normal().string()), 1u) << file << "\n" << read_text(dir.path() / (output.string() + ".d"));
}

INSTANTIATE_TEST_SUITE_P(EachKind, BuildFileNames, ::testing::ValuesIn(k_classes),
                         [](const ::testing::TestParamInfo<NameClass>& name_class) { return std::string(name_class.param.label); });

// A checkout whose own path holds a space and a command: nvcc runs in a workspace of Kiln's and reaches
// the project through links; what it compiles and the headers it reports are the project's.
TEST(BuildFileNamesRoot, AProjectDirectoryWithShellSyntaxBuildsOnBothRoutes) {
  ScratchDir dir;
  // nvcc runs in a workspace that is gone after the build: the command would write where $MARK says.
  const fs::path p = write_project(dir.path() / "my project $(touch $MARK)", "k");
  const RunResult r = run_kiln({"build", (p / "kiln.toml").string(), "-o", "out.kiln"}, dir.path(),
                               {"MARK=" + (dir.path() / "PWNED").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "PWNED"));
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"host_k", "device_k"}));
  const std::string deps = read_text(dir.path() / "out.kiln.d");
  EXPECT_NE(deps.find("near\\ k.cuh"), std::string::npos) << deps;
  EXPECT_EQ(deps.find("kiln-link-"), std::string::npos) << "the workspace's links are named back" << deps;
}

// A line break is the one byte a Makefile depfile cannot hold: the build says so, naming the file, and
// writes nothing; with --no-depfile the same sources build, on both routes.
TEST(BuildFileNamesLineBreak, IsRefusedNamingTheFileUnlessNoDepfileIsWritten) {
  ScratchDir dir;
  write_project(dir.path() / "p", "line\nbreak", "plain");
  const RunResult refused = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(refused.exit_code, k_bad_input) << refused.err;
  EXPECT_NE(refused.err.find("line\nbreak"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("has a line break in its name, which a Makefile depfile cannot hold; nothing written"),
            std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln"));
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln.d"));
  const RunResult built = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--no-depfile"}, dir.path());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"host_k", "device_k"}));
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln.d"));
}

}  // namespace
}  // namespace kiln::test
