// A [[source]]'s own include_dirs (issue 33, point 3): searched after the manifest's, for that source's
// unit only: its scan, its NVRTC or nvcc compile, a link group's member, its cache key (one unit misses
// when they change; a copy of the tree elsewhere still hits) and what a carried unit records, so that a
// run-time compile finds the header with the project gone.
#include "writer/package_contents.hpp"
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"
#include "package_kernels.hpp"
#include "rtc/runtime_compiler.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

// config.cuh in <dir> names the kernel that includes it: the package says which header each source read.
void write_config(const fs::path& project, const std::string& dir, const std::string& kernel) {
  write_text(project / dir / "config.cuh", "#pragma once\n#define WHICH " + kernel + "\n");
}

class BuildSourceIncludeDirs : public ::testing::Test {
protected:
  BuildSourceIncludeDirs() : m_project(m_dir.path() / "project"), m_cache(m_dir.path() / "cache") {
    write_config(m_project, "a_inc", "from_a");
    write_config(m_project, "b_inc", "from_b");
    write_config(m_project, "g_inc", "from_g");
    // a.cu: NVRTC. b.cu: host code, so nvcc. g.cu: a link group's member.
    write_text(m_project / "kernels/a.cu", "#include \"config.cuh\"\nextern \"C\" __global__ void WHICH(int* x) { x[0] = 1; }\n");
    write_text(m_project / "kernels/b.cu", "#include \"config.cuh\"\nextern \"C\" __global__ void WHICH(int* x) { x[0] = 2; }\n"
                                           "void launch(int* x) { WHICH<<<1, 1>>>(x); }\n");
    write_text(m_project / "kernels/g.cu", "#include \"config.cuh\"\nextern \"C\" __global__ void WHICH(int* x) { x[0] = 3; }\n");
  }

  RunResult build(const fs::path& project) {
    return run_kiln({"build", "-o", "out.kiln", "-v"}, project, {"KILN_CACHE_DIR=" + m_cache.string()});
  }
  void write_manifest(const std::string& a_dirs, const std::string& extra = "") {
    write_text(m_project / "kiln.toml",
               "name = \"dirs\"\ntargets = [\"sm_90\"]\n"
               "[[source]]\npath = \"kernels/a.cu\"\ninclude_dirs = [" + a_dirs + "]\n"
               "[[source]]\npath = \"kernels/b.cu\"\ninclude_dirs = [\"b_inc\"]\n"
               "[[source]]\npath = \"kernels/g.cu\"\nlink_group = \"g\"\ninclude_dirs = [\"g_inc\"]\n" + extra);
  }
  static bool says(const RunResult& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

  ScratchDir m_dir;
  fs::path m_project;
  fs::path m_cache;
};

TEST_F(BuildSourceIncludeDirs, EachSourceReadsTheHeaderOfItsOwnDirectory) {
  write_manifest("\"a_inc\"");
  const RunResult r = build(m_project);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(says(r, "the scan cannot read")) << "the scan searched a.cu's directory too\n" << r.err;
  EXPECT_EQ(kernels_of(m_project / "out.kiln"), (std::set<std::string>{"from_a", "from_b", "from_g"}));
  // -v shows each compiler its source's directory, after the manifest's and before the toolkit's.
  EXPECT_TRUE(says(r, "nvrtc: -Ia_inc -I")) << r.err;
  EXPECT_TRUE(says(r, "nvcc: -Ib_inc -I")) << r.err;
  // kiln inspect --json: each source's own directories among its options, as written in the manifest.
  const RunResult inspect = run_kiln({"inspect", "--json", "out.kiln"}, m_project);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const nlohmann::json metadata = nlohmann::json::parse(inspect.out)["metadata"];
  EXPECT_EQ(metadata["options.kernels/a.cu"], "-Ia_inc");
  EXPECT_EQ(metadata["options.kernels/b.cu"], "-Ib_inc");
  EXPECT_EQ(metadata["options"], "-I<cuda>/include/cccl -I<cuda>/include") << "the package-wide list is unchanged";
}

// A source without the directory does not get another's: its #include fails, at its own line.
TEST_F(BuildSourceIncludeDirs, ASourceWithoutTheDirectoryDoesNotFindTheHeader) {
  write_text(m_project / "kernels/c.cu", "#include \"config.cuh\"\nextern \"C\" __global__ void WHICH(int* x) { x[0] = 4; }\n");
  write_manifest("\"a_inc\"", "[[source]]\npath = \"kernels/c.cu\"\n");
  const RunResult r = build(m_project);
  EXPECT_EQ(r.exit_code, k_failed) << r.err;
  EXPECT_TRUE(says(r, "kernels/c.cu:1:")) << r.err;
  EXPECT_TRUE(says(r, "config.cuh")) << r.err;
  EXPECT_FALSE(says(r, "kernels/a.cu:1:")) << r.err;
}

TEST_F(BuildSourceIncludeDirs, ChangingOneSourcesDirectoriesRecompilesThatUnitAlone) {
  write_manifest("\"a_inc\"");
  ASSERT_EQ(build(m_project).exit_code, 0);
  // The same header in another directory: only the option differs, and only a.cu's.
  write_config(m_project, "a_other", "from_a");
  write_manifest("\"a_other\"");
  const RunResult moved = build(m_project);
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_TRUE(says(moved, "compile: 2 cached, 1 compiled")) << moved.err;
  EXPECT_TRUE(says(moved, "sm_90 kernels/b.cu (cached)")) << moved.err;
  EXPECT_FALSE(says(moved, "sm_90 kernels/a.cu (cached)")) << moved.err;

  // Keys name the directories relative to the project: a copy of the tree elsewhere hits them all.
  const fs::path copy = m_dir.path() / "deeper" / "copy";
  fs::create_directories(copy.parent_path());
  fs::copy(m_project, copy, fs::copy_options::recursive);
  fs::remove(copy / "out.kiln");
  const RunResult elsewhere = build(copy);
  ASSERT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  EXPECT_TRUE(says(elsewhere, "compile: 3 cached, 0 compiled")) << elsewhere.err;
  EXPECT_EQ(read_bytes(copy / "out.kiln"), read_bytes(m_project / "out.kiln"));
}

// A carried unit records its own directory: the run-time compile of an instantiation the build never
// made finds the header there, with the project removed.
TEST_F(BuildSourceIncludeDirs, ACarriedUnitCarriesItsDirectoryForTheRunTimeCompile) {
  if (!fs::exists("/usr/local/cuda/lib64/libnvrtc.so.13")) GTEST_SKIP() << "the run-time compile needs NVRTC";
  write_text(m_project / "t_inc/factor.cuh", "#pragma once\n#define FACTOR 3\n");
  write_text(m_project / "kernels/t.cu", "#include \"factor.cuh\"\n"
                                         "template <typename T> __global__ void scaled(T* x) { x[0] *= FACTOR; }\n");
  write_text(m_project / "kiln.toml", "targets = [\"sm_90\"]\ncarry_sources = true\n[[source]]\npath = \"kernels/t.cu\"\n"
                                      "include_dirs = [\"t_inc\"]\ninstantiate = [\"scaled<float>\"]\n");
  const RunResult r = run_kiln({"build", "-o", "../t.kiln"}, m_project, {"KILN_CACHE_DIR=" + m_cache.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const RunResult inspect = run_kiln({"inspect", "--json", "t.kiln"}, m_dir.path());
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  const nlohmann::json carried = nlohmann::json::parse(inspect.out)["units"][0]["carried"];
  EXPECT_EQ(carried["include_dirs"], nlohmann::json({"t_inc", "_cuda/include/cccl", "_cuda/include"})) << carried.dump();
  const RunResult verify = run_kiln({"verify", "t.kiln"}, m_dir.path());
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
  fs::remove_all(m_project);

  set_variable("CUDA_PATH", "/usr/local/cuda");
  const std::vector<std::byte> package = read_bytes(m_dir.path() / "t.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(package, "t.kiln"));
  rtc::CompiledCache cache(store::CacheSettings{false, {}, 0});
  rtc::RuntimeCompiler compiler(rtc::CompilerSettings{}, cache);
  const Result<rtc::Compiled> outcome = compiler.package_kernel(reader, "t.kiln", "scaled<double>", "sm_90");
  ASSERT_TRUE(outcome.ok()) << error_text(outcome.error());
}

}  // namespace
}  // namespace kiln::test
