// What a kernel source's unit says by its text, headers included (plan/unit_text.hpp).
#include "plan/unit_text.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <tuple>

namespace kiln::plan {
namespace {

namespace fs = std::filesystem;

class UnitText : public ::testing::Test {
protected:
  UnitText() {
    std::string name = (fs::temp_directory_path() / "kiln-unit-text-XXXXXX").string();
    m_manifest.root = mkdtemp(name.data());
  }
  ~UnitText() override {
    std::error_code ignored;
    fs::remove_all(m_manifest.root, ignored);
  }

  void write(const std::string& path, const std::string& text) {
    fs::create_directories((m_manifest.root / path).parent_path());
    std::ofstream(m_manifest.root / path) << text;
  }

  std::optional<UnitTextFacts> facts(const std::string& path, std::vector<std::string> include_dirs = {}) {
    manifest::SourceEntry source;
    source.path = path;
    source.include_dirs = std::move(include_dirs);
    return ProjectText(m_manifest, m_cuda_root).facts_of(source);
  }

  // Whether the unit of `path` (which must read) may read headers the walk did not see.
  bool unseen(const std::string& path) {
    const std::optional<UnitTextFacts> unit = facts(path);
    EXPECT_TRUE(unit) << path;
    return unit && unit->unseen_headers;
  }

  manifest::Manifest m_manifest;
  fs::path m_cuda_root;   // none unless a test makes one
};

// Host code shown only by a header two includes away (Rodinia's dwt2d/common.cu: its own text is a
// static member; common.h includes <cstdio> and <vector>).
TEST_F(UnitText, HostCodeInAHeaderTheSourceReachesCounts) {
  write("src/k.cu", "#include \"common.h\"\nbool flag = false;\n");
  write("src/common.h", "#pragma once\n#include \"detail/helpers.h\"\n__global__ void k(float*);\n");
  write("src/detail/helpers.h", "#include <vector>\ninline void h() {}\n");
  const std::optional<UnitTextFacts> unit = facts("src/k.cu");
  ASSERT_TRUE(unit);
  EXPECT_TRUE(unit->host_code);
  EXPECT_FALSE(unit->kiln_runtime);
  EXPECT_TRUE(unit->complete);
}

TEST_F(UnitText, ADeviceOnlyUnitIsNotHostCodeWhatItsCommentsSay) {
  write("k.cu", "#include \"dev.cuh\"\n__global__ void k(float* x) { x[0] = f(); }\n");
  write("dev.cuh", "// #include <vector>, k<<<1, 1>>>()\n__device__ inline float f() { return 1; }\n#include <cuda/std/limits>\n");
  const std::optional<UnitTextFacts> unit = facts("k.cu");
  ASSERT_TRUE(unit);
  EXPECT_FALSE(unit->host_code);
  EXPECT_TRUE(unit->complete);
}

// A template or a variable in device memory in a header counts as the unit's, as host code does: a
// device-only unit is left unparsed only where neither shows.
TEST_F(UnitText, TemplatesAndDeviceVariablesInAHeaderCount) {
  write("plain.cu", "#include \"math.cuh\"\n__global__ void k(float* x) { x[0] = twice(x[0]); }\n");
  write("math.cuh", "#pragma once\n__device__ inline float twice(float v) { return 2 * v; }\n");
  write("templated.cu", "#include \"math.cuh\"\n#include \"tile.cuh\"\n__global__ void k(float* x) {}\n");
  write("tile.cuh", "template <int N> __device__ float tile(const float* x) { return x[N]; }\n");
  write("with_table.cu", "#include \"table.cuh\"\n__global__ void k(float* x) { x[0] = lut[0]; }\n");
  write("table.cuh", "__constant__ float lut[16];\n");
  // Each source with the templates and device variables its unit shows.
  for (const auto& [source, templates, variables] : {std::tuple{"plain.cu", false, false},
                                                      std::tuple{"templated.cu", true, false},
                                                      std::tuple{"with_table.cu", false, true}}) {
    const std::optional<UnitTextFacts> unit = facts(source);
    ASSERT_TRUE(unit) << source;
    EXPECT_EQ(unit->templates, templates) << source;
    EXPECT_EQ(unit->device_variables, variables) << source;
  }
}

// Headers the compiler may read but the walk does not see: a quoted name the project does not hold, a
// computed include, a <build> include directory, an option that adds a search directory or a header.
// An angled name the project does not hold is the toolkit's or the system's.
TEST_F(UnitText, HeadersTheWalkCannotSeeAreSaid) {
  write("seen.cu", "#include \"local.cuh\"\n#include <cuda_fp16.h>\n__global__ void k() {}\n");
  write("local.cuh", "#pragma once\n#include <cuda/std/limits>\n");
  write("quoted_elsewhere.cu", "#include \"local.cuh\"\n#include \"generated.cuh\"\n__global__ void k() {}\n");
  write("computed.cu", "#define HEADER \"local.cuh\"\n#include HEADER\n__global__ void k() {}\n");
  write("computed_in_header.cu", "#include \"picks.cuh\"\n__global__ void k() {}\n");
  write("picks.cuh", "#include_next <local.cuh>\n");
  EXPECT_FALSE(unseen("seen.cu"));
  EXPECT_TRUE(unseen("quoted_elsewhere.cu"));
  EXPECT_TRUE(unseen("computed.cu"));
  EXPECT_TRUE(unseen("computed_in_header.cu"));
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{"-Igen"}, {"--include-path=gen"}, {"--pre-include=consts.cuh"}, {"-include", "consts.cuh"},
        {"--no-such-option"}}) {
    m_manifest.options = {"-use_fast_math"};
    m_manifest.options.insert(m_manifest.options.end(), options.begin(), options.end());
    EXPECT_TRUE(unseen("seen.cu")) << options.front();
  }
  m_manifest.options = {"-use_fast_math", "-DN=4", "--std=c++17"};
  EXPECT_FALSE(unseen("seen.cu"));
  m_manifest.include_dirs = {"<build>/generated"};
  EXPECT_TRUE(unseen("seen.cu"));
  m_manifest.include_dirs = {"<cuda>/include/cccl", "<kiln>"};
  EXPECT_FALSE(unseen("seen.cu"));
  const std::optional<UnitTextFacts> own_dirs = facts("seen.cu", {"<build>"});
  ASSERT_TRUE(own_dirs);
  EXPECT_TRUE(own_dirs->unseen_headers) << "the source's own include_dirs";
}

// A quoted name the project does not hold but the toolkit does ("cuda_fp16.h", as much real code
// writes it) is the toolkit's header, as an angled one is: nvcc finds it there. CCCL's directory
// counts only where the manifest adds it.
TEST_F(UnitText, AQuotedNameTheToolkitHoldsIsTheToolkits) {
  write("toolkit/include/cuda_fp16.h", "#pragma once\n");
  write("toolkit/include/cccl/cub/cub.cuh", "#pragma once\n");
  write("fp16.cu", "#include \"cuda_fp16.h\"\n__global__ void k() {}\n");
  write("cub.cu", "#include \"cub/cub.cuh\"\n__global__ void k() {}\n");
  write("generated.cu", "#include \"cuda_fp16.h\"\n#include \"generated.cuh\"\n__global__ void k() {}\n");
  EXPECT_TRUE(unseen("fp16.cu")) << "no toolkit known: not seen";
  m_cuda_root = m_manifest.root / "toolkit";
  EXPECT_FALSE(unseen("fp16.cu"));
  EXPECT_FALSE(unseen("cub.cu"));
  EXPECT_TRUE(unseen("generated.cu")) << "a name neither holds";
  m_manifest.toolkit_includes = false;
  EXPECT_TRUE(unseen("cub.cu")) << "CCCL's directory is not searched";
  EXPECT_FALSE(unseen("fp16.cu"));
}

// A source that launches its kernels, whose header makes Kiln runtime requests: the scan must read it
// (its requests name instantiations the text does not make).
TEST_F(UnitText, KilnsRuntimeInAHeaderCounts) {
  write("k.cu", "#include \"ops.hpp\"\nint main() { k<<<1, 1>>>(); }\n");
  write("ops.hpp", "#include <kiln/kiln.hpp>\ninline void run(kiln::Package& p) { p.kernel(\"scale<3>\"); }\n");
  const std::optional<UnitTextFacts> unit = facts("k.cu");
  ASSERT_TRUE(unit);
  EXPECT_TRUE(unit->host_code);
  EXPECT_TRUE(unit->kiln_runtime);

  // Both facts are whole whichever header says which: host code in a header read after the one
  // that uses Kiln's runtime still counts (the route guessed while the scan runs takes it).
  write("d.cu", "#include \"host.h\"\n#include \"ops.hpp\"\n__global__ void k() {}\n");
  write("host.h", "#include <vector>\n");
  const std::optional<UnitTextFacts> both = facts("d.cu");
  ASSERT_TRUE(both);
  EXPECT_TRUE(both->host_code);
  EXPECT_TRUE(both->kiln_runtime);
}

// Quoted: beside the includer first, then the include directories (the manifest's, then the
// source's own); angled: the include directories only. A directory of the name is passed over.
TEST_F(UnitText, HeadersAreFoundWhereThePreprocessorLooks) {
  m_manifest.include_dirs = {"inc", "<cuda>/include"};
  write("k.cu", "#include <host_angle.h>\n");
  write("inc/host_angle.h", "#include <iostream>\n");
  EXPECT_TRUE(facts("k.cu")->host_code) << "an angled include in the manifest's include directory";

  write("k.cu", "#include <beside.h>\n");
  write("beside.h", "int main() {}\n");
  EXPECT_FALSE(facts("k.cu")->host_code) << "an angled include is not looked for beside the source";

  write("k.cu", "#include \"own.h\"\n");
  write("own_dir/own.h", "void f() { cudaMalloc(0, 4); }\n");
  EXPECT_FALSE(facts("k.cu")->host_code);
  EXPECT_TRUE(facts("k.cu", {"own_dir"})->host_code) << "the source's own include directory";

  write("k.cu", "#include \"shadowed.h\"\n");
  fs::create_directories(m_manifest.root / "shadowed.h");
  write("inc/shadowed.h", "#include <thread>\n");
  EXPECT_TRUE(facts("k.cu")->host_code) << "a directory named like the header is passed over";

  write("k.cu", "#include \"nowhere.h\"\n#include <cuda_fp16.h>\n");
  const std::optional<UnitTextFacts> outside = facts("k.cu");
  EXPECT_FALSE(outside->host_code);
  EXPECT_TRUE(outside->complete) << "a header outside the project is not the project's: nothing is unknown";
}

TEST_F(UnitText, IncludeCyclesEnd) {
  write("k.cu", "#include \"a.h\"\n");
  write("a.h", "#include \"b.h\"\n#include \"a.h\"\n");
  write("b.h", "#include \"a.h\"\n#include \"k.cu\"\n");
  const std::optional<UnitTextFacts> unit = facts("k.cu");
  ASSERT_TRUE(unit);
  EXPECT_FALSE(unit->host_code);
  EXPECT_TRUE(unit->complete);
}

// A header that exists but is not read (a FIFO, never waited on; one past the size bound) leaves the
// unit incomplete, so that it is parsed; a source that cannot be read has no facts.
TEST_F(UnitText, WhatIsNotReadMakesTheUnitIncomplete) {
  write("k.cu", "#include \"fifo.h\"\nint main() {}\n");
  ASSERT_EQ(mkfifo((m_manifest.root / "fifo.h").c_str(), 0600), 0);
  std::optional<UnitTextFacts> unit = facts("k.cu");
  ASSERT_TRUE(unit);
  EXPECT_TRUE(unit->host_code);
  EXPECT_FALSE(unit->complete);

  write("k.cu", "#include \"huge.h\"\nint main() {}\n");
  write("huge.h", "");
  fs::resize_file(m_manifest.root / "huge.h", k_largest_project_header + 1);
  unit = facts("k.cu");
  ASSERT_TRUE(unit);
  EXPECT_FALSE(unit->complete);

  EXPECT_FALSE(facts("missing.cu"));
}

// Past k_most_project_headers a walk reads no more: the units it did not finish are incomplete.
TEST_F(UnitText, TheWalkIsBounded) {
  std::string chain;
  for (std::size_t i = 0; i <= k_most_project_headers; ++i) chain += "#include \"h" + std::to_string(i) + ".h\"\n";
  write("k.cu", chain + "int main() {}\n");
  for (std::size_t i = 0; i <= k_most_project_headers; ++i) write("h" + std::to_string(i) + ".h", "");
  const std::optional<UnitTextFacts> unit = facts("k.cu");
  ASSERT_TRUE(unit);
  EXPECT_FALSE(unit->complete);
}

// So is the sum of what it reads: headers of the largest size each, until the total is spent.
TEST_F(UnitText, TheBytesReadAreBounded) {
  const std::size_t headers = k_most_project_header_bytes / k_largest_project_header + 1;
  std::string includes;
  for (std::size_t i = 0; i < headers; ++i) {
    includes += "#include \"big" + std::to_string(i) + ".h\"\n";
    write("big" + std::to_string(i) + ".h", "");
    fs::resize_file(m_manifest.root / ("big" + std::to_string(i) + ".h"), k_largest_project_header);   // sparse
  }
  write("k.cu", includes + "int main() {}\n");
  const std::optional<UnitTextFacts> unit = facts("k.cu");
  ASSERT_TRUE(unit);
  EXPECT_FALSE(unit->complete);
}

}  // namespace
}  // namespace kiln::plan
