// Names are data: sources, headers, include directories and output directories whose names hold what a
// shell reads ($( ), backticks, ';', '&', '|', quotes, spaces, '*') build correctly on both routes,
// nvcc's (which runs its steps through a shell) and NVRTC's, and never run anything. The only names
// refused are those the depfile cannot hold (a line break; ';', '|', '*', parentheses, quotes,
// backticks, '&': package/depfile.hpp), and only while a depfile is written.
#include "compile/nvcc_compiler.hpp"
#include "kiln_runner.hpp"
#include "package_kernels.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using Names = std::set<std::string>;

struct NameClass {
  const char* label = nullptr;
  std::string text{};     // what every name of the project holds; the commands in it would make PWNED
  std::string header{};   // the headers' where it differs: #include "..." ends at a '"', escapes none
  const char* refused_byte = nullptr;   // how the depfile's refusal names the first byte it cannot hold
};

const NameClass k_classes[] = {
    {"CommandSubstitution", "$(touch PWNED)", {}, "a '('"},
    {"Backticks", "`touch PWNED`", {}, "a '`'"},
    {"Semicolon", "x;touch PWNED;y", {}, "a ';'"},
    {"Ampersand", "x&touch PWNED&y", {}, "a '&'"},
    {"Pipe", "x|touch PWNED|y", {}, "a '|'"},
    {"Quotes", "'\"$(touch PWNED)\"'", "'$(touch PWNED)'", "a '''"},
    {"Spaces", "a b  c"},
    {"Star", "*", {}, "a '*'"},
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
  std::vector<std::string> arguments = {"build", "p/kiln.toml", "-o", output.string()};
  if (const char* byte = GetParam().refused_byte) {
    // A depfile cannot hold the name: the build says so, naming the file and the byte, and writes nothing.
    const RunResult refused = run_kiln(arguments, dir.path());
    EXPECT_EQ(refused.exit_code, k_bad_input) << refused.err;
    EXPECT_NE(refused.err.find("' has " + std::string(byte) + " in its name ("), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("which a Makefile depfile cannot hold; nothing written"), std::string::npos) << refused.err;
    EXPECT_FALSE(fs::exists(dir.path() / output));
    EXPECT_FALSE(fs::exists(dir.path() / (output.string() + ".d")));
    EXPECT_EQ(markers_under(dir.path()), std::vector<fs::path>{}) << "a name ran a command";
    arguments.push_back("--no-depfile");
  }
  const RunResult r = run_kiln(arguments, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // nvcc and its shells run in p/, which is plain: a command there would have left p/PWNED.
  EXPECT_EQ(markers_under(dir.path()), std::vector<fs::path>{}) << "a name ran a command";
  EXPECT_EQ(kernels_of(dir.path() / output), (Names{"host_k", "device_k"}));
  EXPECT_EQ(run_kiln({"verify", output.string()}, dir.path()).exit_code, 0);
  if (GetParam().refused_byte) {
    EXPECT_FALSE(fs::exists(dir.path() / (output.string() + ".d")));
    return;
  }
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
  // Its parentheses are not for a depfile: this build writes none.
  const fs::path p = write_project(dir.path() / "my project $(touch $MARK)", "k");
  const RunResult r = run_kiln({"build", (p / "kiln.toml").string(), "-o", "out.kiln", "--no-depfile"}, dir.path(),
                               {"MARK=" + (dir.path() / "PWNED").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "PWNED"));
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"host_k", "device_k"}));
  // One whose name a depfile holds ('$' and spaces): the depfile names the project's own files.
  const fs::path q = write_project(dir.path() / "my project ${MARK} #1", "k");
  const RunResult s = run_kiln({"build", (q / "kiln.toml").string(), "-o", "out.kiln"}, dir.path(),
                               {"MARK=" + (dir.path() / "PWNED").string()});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const std::string deps = read_text(dir.path() / "out.kiln.d");
  EXPECT_NE(deps.find("near\\ k.cuh"), std::string::npos) << deps;
  EXPECT_EQ(deps.find("kiln-link-"), std::string::npos) << "the workspace's links are named back" << deps;
}

// A name that starts with '-' is a file to every program Kiln gives it to, never an option: here a
// source nvcc compiles is named "--config=./k.cu", a kernel source NVRTC compiles "-o.cu" and a host
// source "-Dapp.cpp". ./k.cu is also a file that clang would obey as a configuration, asking it to
// write a dependency file. The build reads all three as sources and nothing of the configuration
// happens ('=' is not for a depfile: this build writes none). Then the same with a depfile, the nvcc
// source named "-x.cu" (clang's -x takes ".cu" for a language): the depfile lists each source once.
TEST(BuildFileNamesLeadingDash, SourcesNamedLikeOptionsAreFilesToClangNvccAndNvrtc) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  const fs::path written = dir.path() / "WRITTEN-BY-CONFIG";
  const std::string host_code = "#include <cstdio>\n__global__ void host_k(int* x) { x[0] = 7; }\n"
                                "void launch(int* x) { host_k<<<1, 1>>>(x); std::printf(\"launched\\n\"); }\n";
  write_text(p / "k.cu", "-MD -MF " + written.string() + "\n");
  write_text(p / "--config=." / "k.cu", host_code);
  write_text(p / "-x.cu", host_code);
  write_text(p / "-o.cu", "extern \"C\" __global__ void device_k(int* x) { x[0] = 5; }\n");
  write_text(p / "-Dapp.cpp", "#include <kiln/kiln.hpp>\nvoid f(kiln::Package& pkg) { pkg.kernel(\"device_k\"); }\n");
  const auto manifest = [&](const char* nvcc_source) {
    write_text(p / "kiln.toml", std::string("targets = [\"sm_80\"]\nhost_sources = [\"-Dapp.cpp\"]\n[[source]]\npath = \"") +
                                    nvcc_source + "\"\n[[source]]\npath = \"-o.cu\"\n");
  };
  manifest("--config=./k.cu");
  const RunResult r = run_kiln({"build", "kiln.toml", "-o", "../out.kiln", "--no-depfile"}, p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(written)) << "a source's name was read as --config";
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"host_k", "device_k"}));

  manifest("-x.cu");
  const RunResult s = run_kiln({"build", "kiln.toml", "-o", "../out.kiln"}, p);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(kernels_of(dir.path() / "out.kiln"), (Names{"host_k", "device_k"}));
  const std::vector<std::string> deps = compile::depfile_prerequisites(read_text(dir.path() / "out.kiln.d"));
  for (const char* name : {"-x.cu", "-o.cu", "-Dapp.cpp"})
    EXPECT_EQ(std::count(deps.begin(), deps.end(), fs::absolute(p / name).lexically_normal().string()), 1)
        << name << "\n" << read_text(dir.path() / "out.kiln.d");
}

// A line break, which no depfile can hold in any spelling: the build says so, naming the file, and
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
