// kiln build with the manifest's top-level 'instantiate' and 'variables' (the package's names, which
// kiln_add_cache's INSTANTIATE and VARIABLES write): each name goes to every source whose code
// defines what it names, a header's template to each source including it (one kernel in the
// package); a name no source defines is an error at its entry with a near name (or naming the sources
// the scan could not read, which may define it), and a variable two
// sources keep a copy of is an error too; with 'cmake_call' the errors are at the kiln_add_cache()
// call, under CMake's keywords, once (NVRTC's and nvcc's errors on a name too); shards route as the whole build does (the merge's bytes are
// the whole build's) and leave a name no shard's sources define to the merge, which refuses it.
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class BuildPackageNames : public ::testing::Test {
protected:
  BuildPackageNames() {
    fs::create_directories(m_project / "k");
    write_text(m_project / "k" / "fill.cuh", "template <typename T> __global__ void fill(T* x, T v) { x[0] = v; }\n");
    write_text(m_project / "k" / "a.cu",
               "#include \"fill.cuh\"\ntemplate <typename T> __global__ void scale(T* x, T f) { x[0] *= f; }\n");
    write_text(m_project / "k" / "b.cu",
               "#include \"fill.cuh\"\nnamespace ns { template <typename T, int N> __global__ void sum(T* x) "
               "{ x[0] += N; } }\n__device__ float table[4];\n");
  }

  // kiln.toml with `top` before its two sources.
  void manifest(const std::string& top) const {
    write_text(m_project / "kiln.toml", "name = \"names\"\ntargets = [\"sm_90\"]\n" + top +
                                            "\n[[source]]\npath = \"k/a.cu\"\n\n[[source]]\npath = \"k/b.cu\"\n");
  }

  RunResult build(const std::vector<std::string>& extra = {}, const std::string& cache = "cache") const {
    std::vector<std::string> args{"build", "-v"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, m_project, {"KILN_CACHE_DIR=" + (m_dir.path() / cache).string()});
  }

  // The unit (its source) holding the kernel `name` finds, or "" when none.
  std::string unit_of(const std::string& package, const std::string& name) const {
    const std::vector<std::byte> bytes = read_bytes(m_project / package);
    format::PackageReader reader;
    if (!reader.open(bytes)) return "unreadable";
    const std::optional<std::uint32_t> k = reader.find_kernel(name);
    return k ? std::string(reader.unit(reader.kernel(*k).unit).source) : std::string();
  }

  static bool says(const RunResult& r, const std::string& text) { return r.err.find(text) != std::string::npos; }

  ScratchDir m_dir;
  fs::path m_project = m_dir.path() / "project";
};

TEST_F(BuildPackageNames, EachNameGoesToTheSourceThatDefinesIt) {
  manifest("instantiate = [\"scale<float>\", \"ns::sum<int, 4>\", \"fill<double>\"]\nvariables = [\"table\"]");
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(unit_of("names.kiln", "scale<float>"), "k/a.cu");
  EXPECT_EQ(unit_of("names.kiln", "ns::sum<int, 4>"), "k/b.cu");
  // Both sources define the header's template: each builds it, and the package holds it once.
  EXPECT_NE(unit_of("names.kiln", "fill<double>"), "");
  const std::vector<std::byte> bytes = read_bytes(m_project / "names.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  EXPECT_EQ(reader.kernel_count(), 3u);
  ASSERT_EQ(reader.variable_count(), 1u);
  EXPECT_EQ(reader.unit(reader.variable(0).unit).source, "k/b.cu");
}

TEST_F(BuildPackageNames, ANameNoSourceDefinesIsAnErrorAtItsEntry) {
  manifest("instantiate = [\"scale<float>\",\n  \"scal<float>\",\n  \"sum<int, 4>\"]");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(says(r, "kiln.toml:4:4: error: 'instantiate' entry 'scal<float>': no kernel source defines a kernel or "
                      "kernel template 'scal' (did you mean 'scale'?)")) << r.err;
  // Without its namespace: the qualified name is suggested.
  EXPECT_TRUE(says(r, "kiln.toml:5:4: error: 'instantiate' entry 'sum<int, 4>': no kernel source defines a kernel or "
                      "kernel template 'sum' (did you mean 'ns::sum'?)")) << r.err;
  EXPECT_FALSE(fs::exists(m_project / "names.kiln"));
}

TEST_F(BuildPackageNames, ANameOnlyAnUnscannedSourceMayDefineNamesThatSource) {
  // clang cannot read b.cu (the compilers can): it may define 'ns::sum', so the error says so.
  write_text(m_project / "k" / "b.cu", "#ifdef __clang__\n#error \"clang cannot read this file\"\n#endif\n"
                                       "namespace ns { template <typename T, int N> __global__ void sum(T* x) "
                                       "{ x[0] += N; } }\n");
  manifest("instantiate = [\"ns::sum<int, 4>\"]");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(says(r, "kiln.toml:3:17: error: 'instantiate' entry 'ns::sum<int, 4>': no kernel source defines a kernel "
                      "or kernel template 'ns::sum' that the scan could read ('k/b.cu' could not be scanned); list it "
                      "in the 'instantiate' of the [[source]] that defines it")) << r.err;
  // The scan's own warning about b.cu is said beside it.
  EXPECT_TRUE(says(r, "the scan cannot read this source")) << r.err;
}

TEST_F(BuildPackageNames, WithOneSourceEveryNameIsItsScannedOrNot) {
  write_text(m_project / "k" / "b.cu", "#ifdef __clang__\n#error \"clang cannot read this file\"\n#endif\n"
                                       "namespace ns { template <typename T, int N> __global__ void sum(T* x) "
                                       "{ x[0] += N; } }\n");
  write_text(m_project / "kiln.toml", "name = \"names\"\ntargets = [\"sm_90\"]\ninstantiate = [\"ns::sum<int, 4>\"]\n"
                                      "[[source]]\npath = \"k/b.cu\"\n");
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(unit_of("names.kiln", "ns::sum<int, 4>"), "k/b.cu");
}

TEST_F(BuildPackageNames, AVariableTwoSourcesKeepACopyOfIsAnError) {
  write_text(m_project / "k" / "a.cu", "__device__ float table[4];\n__global__ void k() {}\n");
  manifest("variables = [\"table\"]");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(says(r, "kiln.toml:3:15: error: 'variables' entry 'table': 'k/a.cu' and 'k/b.cu' each declare it, each "
                      "unit with its own copy")) << r.err;
}

TEST_F(BuildPackageNames, FromCMakeTheErrorsAreAtTheCallUnderItsKeywords) {
  manifest("instantiate = [\"scal<float>\"]\ncmake_call = \"CMakeLists.txt:12\"");
  RunResult r = build();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(says(r, "CMakeLists.txt:12: error: INSTANTIATE 'scal<float>' of cache 'names': no kernel source "
                      "defines a kernel or kernel template 'scal' (did you mean 'scale'?)")) << r.err;
  EXPECT_FALSE(says(r, "kiln.toml")) << r.err;
  // A name that does not compile: NVRTC's error, moved to the call, said once.
  manifest("instantiate = [\"scale<flaot>\"]\ncmake_call = \"CMakeLists.txt:12\"");
  r = build();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(says(r, "CMakeLists.txt:12: error: INSTANTIATE 'scale<flaot>' of cache 'names': identifier \"flaot\" is "
                      "undefined (did you mean 'float'?)")) << r.err;
  EXPECT_FALSE(says(r, "kiln.toml")) << r.err;
  EXPECT_FALSE(says(r, "__nv_name_map")) << r.err;
  // A [[source]]'s own names are the source property KILN_INSTANTIATE.
  write_text(m_project / "kiln.toml", "name = \"names\"\ntargets = [\"sm_90\"]\ncmake_call = \"sub/CMakeLists.txt:7\"\n"
                                      "[[source]]\npath = \"k/a.cu\"\ninstantiate = [\"scale<flaot>\"]\n");
  r = build();
  EXPECT_TRUE(says(r, "sub/CMakeLists.txt:7: error: KILN_INSTANTIATE 'scale<flaot>' of source 'k/a.cu' (cache "
                      "'names'): identifier \"flaot\" is undefined")) << r.err;
}

TEST_F(BuildPackageNames, FromCMakeAnNvccUnitsNameErrorIsAtTheCallToo) {
  // Host code: nvcc compiles the unit, its names in a wrapper whose #line puts each at the call.
  write_text(m_project / "k" / "host.cu", "#include <cstdio>\ntemplate <typename T> __global__ void twice(T* x) "
                                          "{ x[0] *= 2; }\nvoid run() { std::printf(\"run\\n\"); }\n");
  write_text(m_project / "kiln.toml", "name = \"names\"\ntargets = [\"sm_90\"]\ninstantiate = [\"twice<flaot>\"]\n"
                                      "cmake_call = \"CMakeLists.txt:3\"\n[[source]]\npath = \"k/host.cu\"\n");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(says(r, "CMakeLists.txt:3: error: INSTANTIATE 'twice<flaot>' of cache 'names': identifier \"flaot\" is "
                      "undefined")) << r.err;
  EXPECT_FALSE(says(r, "(void*)&")) << "nvcc's echo of the wrapper's line:\n" << r.err;
  EXPECT_FALSE(says(r, "kiln.toml:")) << r.err;
}

TEST_F(BuildPackageNames, ShardsRouteAsTheWholeBuildAndTheMergeChecksTheRest) {
  manifest("instantiate = [\"scale<float>\", \"ns::sum<int, 4>\", \"fill<double>\"]");
  ASSERT_EQ(build({"-o", "whole.kiln"}, "cache-whole").exit_code, 0);
  // Each shard scans one source, and sends to it what it defines; the other names are the merge's.
  std::vector<std::string> parts;
  for (int i = 1; i <= 2; ++i) {
    const std::string part = "part" + std::to_string(i);
    const RunResult r = build({"--shard", std::to_string(i) + "/2", "-o", part}, "cache-" + part);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(says(r, "1 name of the manifest's 'instantiate' or 'variables' name nothing this shard scans")) << r.err;
    parts.push_back(part);
  }
  RunResult merged = run_kiln({"merge", "-o", "merged.kiln", parts[0], parts[1]}, m_project,
                              {"KILN_CACHE_DIR=" + (m_dir.path() / "merge-cache").string()});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(read_bytes(m_project / "merged.kiln"), read_bytes(m_project / "whole.kiln"));

  // A name no source defines passes each shard (another may define it) and fails the merge.
  manifest("instantiate = [\"scale<float>\", \"nothing<int>\"]");
  for (int i = 1; i <= 2; ++i) {
    const std::string part = "bad" + std::to_string(i);
    const RunResult r = build({"--shard", std::to_string(i) + "/2", "-o", part}, "cache-" + part);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  merged = run_kiln({"merge", "-o", "bad.kiln", "bad1", "bad2"}, m_project,
                    {"KILN_CACHE_DIR=" + (m_dir.path() / "merge-cache").string()});
  EXPECT_NE(merged.exit_code, 0);
  EXPECT_TRUE(says(merged, "'instantiate' entry 'nothing<int>': no kernel source defines")) << merged.err;
}

}  // namespace
}  // namespace kiln::test
