// kiln build --compile-commands and kiln compile-commands (issue 33, point 6): the kernel sources'
// entries of a JSON compilation database, with the flags their compile used, and their merge into a
// database CMake wrote.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Two targets (the entry's -arch is the lowest), include directories and macros of the manifest and
// of a source, a variant, a device link group of two members, and a source with host code (nvcc).
fs::path write_project(const ScratchDir& dir) {
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", "targets = [\"sm_90\", \"sm_80\"]\n"
                              "include_dirs = [\"inc\"]\n"
                              "defines = [\"SHARED=1\"]\n"
                              "options = [\"-lineinfo\"]\n"
                              "[[source]]\npath = \"kernels/a.cu\"\ndefines = [\"ONLY_A=2\"]\noptions = [\"-maxrregcount=64\"]\n"
                              "[[source]]\npath = \"kernels/a.cu\"\nvariant = \"wide\"\ndefines = [\"ONLY_A=5\"]\n"
                              "[[source]]\npath = \"kernels/host.cu\"\n"
                              "[[source]]\npath = \"kernels/m1.cu\"\nlink_group = \"g\"\n"
                              "[[source]]\npath = \"kernels/m2.cu\"\nlink_group = \"g\"\n");
  write_text(p / "inc/k.h", "#define VALUE 3\n");
  write_text(p / "kernels/a.cu", "#include \"k.h\"\nextern \"C\" __global__ void a(int* p) { *p = ONLY_A + VALUE; }\n");
  write_text(p / "kernels/host.cu", "#include <cstdio>\nextern \"C\" __global__ void h(int* p) { *p = 1; }\n"
                                    "int main() { h<<<1, 1>>>(nullptr); std::puts(\"\"); return 0; }\n");
  write_text(p / "kernels/m1.cu", "__device__ int twice(int x) { return 2 * x; }\n");
  write_text(p / "kernels/m2.cu", "__device__ int twice(int x);\nextern \"C\" __global__ void m(int* p) { *p = twice(*p); }\n");
  return p;
}

bool has(const json& arguments, const std::string& argument) {
  return std::find(arguments.begin(), arguments.end(), argument) != arguments.end();
}

// The entries of `database` for `file` (absolute), in order.
std::vector<json> entries_for(const json& database, const fs::path& file) {
  std::vector<json> found;
  for (const json& entry : database)
    if (entry["file"] == file.string()) found.push_back(entry);
  return found;
}

TEST(BuildCompileCommands, OneEntryPerUnitWithTheFlagsItsCompileUsed) {
  ScratchDir dir;
  const fs::path p = fs::absolute(write_project(dir));
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--compile-commands", "cc.json"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json database = json::parse(read_text(dir.path() / "cc.json"));
  ASSERT_EQ(database.size(), 5u) << database.dump(2);   // a.cu twice (a variant), host.cu, each member
  for (const json& entry : database) {
    EXPECT_EQ(entry["directory"], p.string());
    EXPECT_EQ(entry["output"], (dir.path() / "out.kiln").string());
    const json& arguments = entry["arguments"];
    EXPECT_TRUE(arguments[0].get<std::string>().ends_with("/bin/nvcc")) << arguments;
    EXPECT_TRUE(has(arguments, "-arch=sm_80")) << arguments;   // the lowest target
    EXPECT_TRUE(has(arguments, "-I" + (p / "inc").string())) << arguments;   // absolute
    EXPECT_TRUE(has(arguments, "-DSHARED=1")) << arguments;
    EXPECT_TRUE(has(arguments, "--generate-line-info")) << arguments;   // -lineinfo, as nvcc spells it
    EXPECT_EQ(arguments[arguments.size() - 2], "-c");
    EXPECT_EQ(arguments.back(), entry["file"]);
    // Nothing of Kiln's own workings.
    for (const json& argument : arguments)
      for (const char* internal : {"random-seed", "pch", "time-trace", "-dlto", "orig_src_path_name", "-keep"})
        EXPECT_EQ(argument.get<std::string>().find(internal), std::string::npos) << argument;
  }
  const std::vector<json> a = entries_for(database, p / "kernels/a.cu");
  ASSERT_EQ(a.size(), 2u);
  // Units are in name order: the source's own, then its variant "wide". Each has its own macros and
  // options only.
  EXPECT_TRUE(has(a[0]["arguments"], "-DONLY_A=2") && has(a[0]["arguments"], "--maxrregcount=64")) << a[0];
  EXPECT_TRUE(has(a[1]["arguments"], "-DONLY_A=5") && !has(a[1]["arguments"], "-DONLY_A=2")) << a[1];
  EXPECT_FALSE(has(a[1]["arguments"], "--maxrregcount=64")) << a[1];
  // NVRTC compiled them, at its default standard; nvcc the one with host code, at its own.
  EXPECT_TRUE(has(a[0]["arguments"], "-std=c++17")) << a[0];
  const std::vector<json> host = entries_for(database, p / "kernels/host.cu");
  ASSERT_EQ(host.size(), 1u);
  EXPECT_FALSE(has(host[0]["arguments"], "-std=c++17")) << host[0];
  for (const char* member : {"kernels/m1.cu", "kernels/m2.cu"}) {
    const std::vector<json> entry = entries_for(database, p / member);
    ASSERT_EQ(entry.size(), 1u) << member;
    EXPECT_TRUE(has(entry[0]["arguments"], "-rdc=true")) << entry[0];
  }
}

TEST(BuildCompileCommands, UnchangedDatabaseIsNotRewritten) {
  ScratchDir dir;
  write_project(dir);
  const std::vector<std::string> build = {"build", "p/kiln.toml", "-o", "out.kiln", "--compile-commands", "cc.json"};
  ASSERT_EQ(run_kiln(build, dir.path()).exit_code, 0);
  const fs::path database = dir.path() / "cc.json";
  const std::string before = read_text(database);
  const fs::file_time_type old_time = fs::last_write_time(database) - std::chrono::hours(24);
  fs::last_write_time(database, old_time);
  const RunResult again = run_kiln(build, dir.path());   // every image cached: written all the same
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(fs::last_write_time(database), old_time);
  // Another macro: rewritten.
  std::string manifest = read_text(dir.path() / "p/kiln.toml");
  manifest.replace(manifest.find("\"SHARED=1\""), 10, "\"SHARED=1\", \"MORE=1\"");
  write_text(dir.path() / "p/kiln.toml", manifest);
  const RunResult changed = run_kiln(build, dir.path());
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_NE(fs::last_write_time(database), old_time);
  EXPECT_NE(read_text(database).find("-DMORE=1"), std::string::npos);
  EXPECT_NE(read_text(database), before);
}

TEST(BuildCompileCommands, WrittenWhenACompileFails) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\ndefines = [\"N=4\"]\n[[source]]\npath = \"k.cu\"\n");
  write_text(p / "k.cu", "extern \"C\" __global__ void k(int* p) { *p = N + undefined_name; }\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--compile-commands", "cc.json"}, dir.path());
  EXPECT_EQ(r.exit_code, k_failed) << r.err;
  const json database = json::parse(read_text(dir.path() / "cc.json"));
  ASSERT_EQ(database.size(), 1u);
  EXPECT_TRUE(has(database[0]["arguments"], "-DN=4")) << database;
}

TEST(BuildCompileCommands, NeverWrittenOverAnInput) {
  ScratchDir dir;
  write_project(dir);
  const RunResult r =
      run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--compile-commands", "p/kernels/a.cu"}, dir.path());
  EXPECT_EQ(r.exit_code, k_usage);
  EXPECT_NE(r.err.find("refusing to write the compilation database to p/kernels/a.cu: it is the kernel source"),
            std::string::npos)
      << r.err;
  const RunResult over_package =
      run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--compile-commands", "out.kiln"}, dir.path());
  EXPECT_EQ(over_package.exit_code, k_usage);
  EXPECT_NE(over_package.err.find("refusing to write the compilation database to out.kiln: it is the package"),
            std::string::npos)
      << over_package.err;
}

TEST(CompileCommandsMerge, ReplacesThePackagesEntriesAndKeepsTheRest) {
  ScratchDir dir;
  const json cmake_entry = {{"directory", "/b"}, {"command", "c++ -c /s/main.cpp"}, {"file", "/s/main.cpp"},
                            {"output", "CMakeFiles/app.dir/main.cpp.o"}};
  const json stale = {{"directory", "/s"}, {"file", "/s/gone.cu"}, {"arguments", {"nvcc", "-c", "/s/gone.cu"}},
                      {"output", "/b/k.kiln"}};
  const json other_package = {{"directory", "/s"}, {"file", "/s/o.cu"}, {"arguments", {"nvcc", "-c", "/s/o.cu"}},
                              {"output", "/b/other.kiln"}};
  write_text(dir.path() / "compile_commands.json", json::array({cmake_entry, stale, other_package}).dump());
  const json fresh = {{"directory", "/s"}, {"file", "/s/a.cu"}, {"arguments", {"nvcc", "-DX", "-c", "/s/a.cu"}},
                      {"output", "/b/k.kiln"}};
  write_text(dir.path() / "k.json", json::array({fresh}).dump());
  const RunResult r = run_kiln({"compile-commands", "compile_commands.json", "k.json", "not-built-yet.json"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const json merged = json::parse(read_text(dir.path() / "compile_commands.json"));
  EXPECT_EQ(merged, json::array({cmake_entry, other_package, fresh})) << merged.dump(2);

  // Again: nothing to change, nothing written.
  const fs::path database = dir.path() / "compile_commands.json";
  const fs::file_time_type old_time = fs::last_write_time(database) - std::chrono::hours(24);
  fs::last_write_time(database, old_time);
  ASSERT_EQ(run_kiln({"compile-commands", "compile_commands.json", "k.json"}, dir.path()).exit_code, 0);
  EXPECT_EQ(fs::last_write_time(database), old_time);

  // No database yet: the fragments' entries alone.
  ASSERT_EQ(run_kiln({"compile-commands", "new.json", "k.json"}, dir.path()).exit_code, 0);
  EXPECT_EQ(json::parse(read_text(dir.path() / "new.json")), json::array({fresh}));
}

TEST(CompileCommandsMerge, ADatabaseThatIsNotOneIsAnError) {
  ScratchDir dir;
  write_text(dir.path() / "compile_commands.json", "{\"not\": \"an array\"}");
  write_text(dir.path() / "k.json", "[]");
  const RunResult r = run_kiln({"compile-commands", "compile_commands.json", "k.json"}, dir.path());
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("compile_commands.json: not a JSON compilation database"), std::string::npos) << r.err;
  write_text(dir.path() / "compile_commands.json", "[]");
  write_text(dir.path() / "k.json", "[1, 2]");
  const RunResult fragment = run_kiln({"compile-commands", "compile_commands.json", "k.json"}, dir.path());
  EXPECT_EQ(fragment.exit_code, k_bad_input);
  EXPECT_NE(fragment.err.find("k.json: not a JSON compilation database (an entry is not an object)"),
            std::string::npos)
      << fragment.err;
}

}  // namespace
}  // namespace kiln::test
