// How kiln build compiles a project's sources (issue 31): one nvcc run per unit for every target, a
// cubin as `nvcc -cubin` writes it, sources the image alone describes left unread by the scan, and
// compiles done while the scan runs that never change what the build writes.
#include "kiln_runner.hpp"

#include "image/cubin_reader.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cstdlib>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

// The toolkit as it is, except that bin/nvcc is a script that writes each of its command lines to
// `log` before it runs the real nvcc.
fs::path toolkit_with_logged_nvcc(const fs::path& dir, const fs::path& log) {
  const fs::path real = fs::path(KILN_NVCC).parent_path().parent_path();
  const fs::path root = dir / "cuda";
  fs::create_directories(root / "bin");
  for (const fs::directory_entry& entry : fs::directory_iterator(real))
    if (entry.path().filename() != "bin") fs::create_symlink(entry.path(), root / entry.path().filename());
  for (const fs::directory_entry& entry : fs::directory_iterator(real / "bin"))
    if (entry.path().filename() != "nvcc") fs::create_symlink(entry.path(), root / "bin" / entry.path().filename());
  write_text(root / "bin/nvcc", "#!/bin/sh\necho \"$*\" >> '" + log.string() + "'\nexec '" KILN_NVCC "' \"$@\"\n");
  chmod((root / "bin/nvcc").c_str(), 0755);
  return root;
}

// The lines of `log` that compile (not `nvcc --version`), and that name `source`.
std::vector<std::string> runs_for(const fs::path& log, const std::string& source) {
  std::vector<std::string> runs;
  std::istringstream lines(fs::exists(log) ? read_text(log) : "");
  for (std::string line; std::getline(lines, line);)
    if (line.find("--version") == std::string::npos && line.find(source) != std::string::npos) runs.push_back(line);
  return runs;
}

constexpr const char* k_host_source = R"(#include <cuda_runtime.h>
#include "scale.cuh"
__device__ float table[4];
template <int N> __global__ void scale(float* x) { x[threadIdx.x] *= N * factor() + table[0]; }
int main() {
  float* x = nullptr;
  cudaMalloc(&x, 4 * sizeof(float));
  scale<2><<<1, 4>>>(x);   // nvcc instantiates it: no scan needed to name it
  return 0;
}
)";

class BuildRoute : public ::testing::Test {
protected:
  BuildRoute() : m_project(m_dir.path() / "p"), m_log(m_dir.path() / "nvcc.log") {
    fs::create_directories(m_project / "kernels");
    write_text(m_project / "kernels/host.cu", k_host_source);
    write_text(m_project / "kernels/scale.cuh", "__device__ inline float factor() { return 2.0f; }\n");
    write_text(m_project / "kernels/device.cu", "extern \"C\" __global__ void add(float* x) { x[0] += 1; }\n");
    m_cuda = toolkit_with_logged_nvcc(m_dir.path(), m_log);
  }

  void manifest(const std::string& targets, const std::string& host_entry = "") {
    write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [" + targets + "]\n[[source]]\npath = \"kernels/host.cu\"\n" +
                                            host_entry + "[[source]]\npath = \"kernels/device.cu\"\n");
  }

  RunResult build(const std::string& output, std::vector<std::string> extra = {}, std::vector<std::string> env = {}) {
    std::vector<std::string> args{"build", "-v", "-o", output, "--cuda-root", m_cuda.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    env.push_back("KILN_CACHE_DIR=" + (m_dir.path() / ("cache-" + output)).string());
    return run_kiln(args, m_project, env);
  }

  nlohmann::json inspect(const std::string& package) {
    const RunResult r = run_kiln({"inspect", "--json", package}, m_project);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  static nlohmann::json unit(const nlohmann::json& package, const std::string& source) {
    for (const nlohmann::json& u : package["units"])
      if (u["source"] == source) return u;
    return {};
  }

  static std::vector<std::string> kernel_names(const nlohmann::json& package) {
    std::vector<std::string> names;
    for (const nlohmann::json& k : package["kernels"]) names.push_back(k["name"]);
    return names;
  }

  ScratchDir m_dir;
  fs::path m_project, m_log, m_cuda;
};

TEST_F(BuildRoute, AUnitsTargetsShareOneNvccRunAndEachGetsItsOwnImage) {
  manifest("\"sm_80\", \"sm_90\", \"compute_90\"");
  const RunResult r = build("a.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> runs = runs_for(m_log, "host.cu");
  ASSERT_EQ(runs.size(), 1u) << read_text(m_log);
  EXPECT_EQ(count(runs[0], "-gencode"), 3u) << runs[0];
  for (const char* code : {"arch=compute_80,code=sm_80", "arch=compute_90,code=sm_90", "arch=compute_90,code=compute_90"})
    EXPECT_NE(runs[0].find(code), std::string::npos) << runs[0];
  EXPECT_EQ(run_kiln({"verify", "a.kiln"}, m_project).exit_code, 0);
  const nlohmann::json host = unit(inspect("a.kiln"), "kernels/host.cu");
  ASSERT_EQ(host["images"].size(), 3u) << host.dump();
  for (const auto& [i, target, kind] : {std::tuple{0, "sm_80", "cubin"}, std::tuple{1, "sm_90", "cubin"},
                                       std::tuple{2, "compute_90", "ptx"}}) {
    EXPECT_EQ(host["images"][i]["target"], target);
    EXPECT_EQ(host["images"][i]["kind"], kind);
  }
  // The package's headers come from nvcc's preprocessed code: the source's own header is an input.
  EXPECT_NE(read_text(m_project / "a.kiln.d").find("kernels/scale.cuh"), std::string::npos) << read_text(m_project / "a.kiln.d");
}

// nvcc's __CUDA_ARCH_LIST__ names every architecture of its run, and CUB names its namespace after
// it: an image must not depend on which targets shared its run (or which the cache already held).
TEST_F(BuildRoute, AnImageIsTheSameWhicheverTargetsShareItsRun) {
  write_text(m_project / "kernels/device.cu",
             "#include <cuda_runtime.h>\n#include <cub/block/block_reduce.cuh>\n"
             "__global__ void sum(const float* in, float* out) {\n"
             "  using Reduce = cub::BlockReduce<float, 64>;\n  __shared__ Reduce::TempStorage temp;\n"
             "  const float total = Reduce(temp).Sum(in[threadIdx.x]);\n  if (threadIdx.x == 0) *out = total;\n}\n");
  manifest("\"sm_80\", \"sm_90\"");
  ASSERT_EQ(build("both.kiln").exit_code, 0);
  manifest("\"sm_80\"");
  ASSERT_EQ(build("alone.kiln").exit_code, 0);
  const nlohmann::json both = unit(inspect("both.kiln"), "kernels/device.cu");
  const nlohmann::json alone = unit(inspect("alone.kiln"), "kernels/device.cu");
  ASSERT_EQ(both["images"].size(), 2u);
  EXPECT_EQ(both["images"][0]["checksum"], alone["images"][0]["checksum"]) << both.dump() << "\n" << alone.dump();
}

// For one target the image is the one `nvcc -cubin` writes: the same kernels, variables and size.
TEST_F(BuildRoute, OneTargetIsTheCubinNvccCubinWrites) {
  manifest("\"sm_90\"");
  const RunResult r = build("a.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> runs = runs_for(m_log, "host.cu");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(runs[0].find("-cubin -arch=sm_90"), std::string::npos) << runs[0];
  const std::string command = "cd '" + m_project.string() + "' && '" KILN_NVCC "' -cubin -arch=sm_90 -o '" +
                              (m_dir.path() / "ref.cubin").string() + "' kernels/host.cu";
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::vector<std::byte> reference = read_bytes(m_dir.path() / "ref.cubin");
  const Result<image::CubinInfo> info = image::read_cubin(reference, "ref.cubin");
  ASSERT_TRUE(info) << info.error().message;
  std::vector<std::string> symbols;
  for (const image::CubinSymbol& s : info->symbols)
    if (s.is_kernel || s.is_variable) symbols.push_back(s.name);
  const nlohmann::json package = inspect("a.kiln");
  std::vector<std::string> built;
  for (const nlohmann::json& k : package["kernels"])
    if (k["unit"] == "kernels/host.cu") built.push_back(k["lowered_name"]);
  for (const nlohmann::json& v : package["variables"]) built.push_back(v["lowered_name"].is_string() ? v["lowered_name"] : v["name"]);
  std::sort(symbols.begin(), symbols.end());
  std::sort(built.begin(), built.end());
  EXPECT_EQ(built, symbols);
  EXPECT_EQ(unit(package, "kernels/host.cu")["images"][0]["size"], reference.size());
}

// A source whose text shows host code, and that nothing asks for a name, is left to nvcc's image: the
// scan never parses it, and its kernels are named from their symbols. The device-only source, without
// a template or a variable, is left to NVRTC's. --strict scans both.
TEST_F(BuildRoute, ASourceTheImageDescribesIsNotParsedUnlessStrict) {
  manifest("\"sm_90\"");
  const RunResult r = build("a.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("scan: 0 cached, 0 scanned, 1 source left to nvcc's image, 1 to NVRTC's"), std::string::npos)
      << r.err;
  const std::vector<std::string> names = kernel_names(inspect("a.kiln"));
  EXPECT_NE(std::find(names.begin(), names.end(), "scale<2>"), names.end()) << nlohmann::json(names).dump();
  EXPECT_NE(std::find(names.begin(), names.end(), "add"), names.end());

  const RunResult strict = build("b.kiln", {"--strict"});
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.err.find("scan: 0 cached, 2 scanned, 0 request"), std::string::npos) << strict.err;
  EXPECT_EQ(kernel_names(inspect("b.kiln")), kernel_names(inspect("a.kiln")));
}

// A device-only source is left to NVRTC's image only where a parse has no name to give: NVRTC compiles
// it whole, nvcc never runs for it, and the package is the one a parse makes, byte for byte but its
// name. A __constant__ (the link keeps only the variables named to it) or a template in the unit keeps
// the source parsed.
TEST_F(BuildRoute, ADeviceOnlySourceIsLeftToNvrtcsImageWhereAParseNamesNothing) {
  write_text(m_project / "kernels/device.cu",
             "#include \"index.cuh\"\nnamespace { __global__ void hidden(float* x) { x[index()] = 0; } }\n"
             "namespace ops { __global__ void add(float* x, int n) { if (index() < n) x[index()] += 1; } }\n"
             "extern \"C\" __global__ void fill(float* x, float v) { x[index()] = v; }\n");
  write_text(m_project / "kernels/index.cuh",
             "#pragma once\n__device__ inline int index() { return blockIdx.x * blockDim.x + threadIdx.x; }\n");
  write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [\"sm_80\", \"sm_90\", \"compute_90\"]\n"
                                      "[[source]]\npath = \"kernels/device.cu\"\n");
  const RunResult unread = build("a.kiln");
  ASSERT_EQ(unread.exit_code, 0) << unread.err;
  EXPECT_NE(unread.err.find("scan: 0 cached, 0 scanned, 1 source left to NVRTC's image"), std::string::npos) << unread.err;
  EXPECT_NE(unread.err.find("nvrtc:"), std::string::npos) << unread.err;
  EXPECT_TRUE(runs_for(m_log, "device.cu").empty()) << read_text(m_log);
  const RunResult strict = build("b.kiln", {"--strict"});
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.err.find("scan: 0 cached, 1 scanned, 0 request"), std::string::npos) << strict.err;
  nlohmann::json a = inspect("a.kiln"), b = inspect("b.kiln");
  EXPECT_EQ(kernel_names(a).size(), 3u) << a.dump();
  a.erase("path");
  b.erase("path");
  EXPECT_EQ(a, b);

  // With kernels/index.cuh as `header`, the unit is parsed and the package keeps `variable`, by name.
  const auto expect_parsed_variable = [&](const std::string& header, const std::string& output, const char* variable) {
    write_text(m_project / "kernels/index.cuh", header);
    const RunResult built = build(output);
    ASSERT_EQ(built.exit_code, 0) << built.err;
    EXPECT_NE(built.err.find("scan: 0 cached, 1 scanned, 0 request"), std::string::npos) << built.err;
    const nlohmann::json package = inspect(output);
    ASSERT_EQ(package["variables"].size(), 1u) << package.dump();
    EXPECT_EQ(package["variables"][0]["name"], variable);
  };
  // A __constant__ in a header.
  expect_parsed_variable("#pragma once\n__constant__ int offset;\n"
                         "__device__ inline int index() { return offset + threadIdx.x; }\n",
                         "c.kiln", "offset");
  // A pointer to a function in device memory is a variable too (LTO would fold it away unnamed).
  expect_parsed_variable("#pragma once\n__device__ int lane(int i) { return i; }\n__device__ int (*pick)(int) = lane;\n"
                         "__device__ inline int index() { return pick(threadIdx.x); }\n",
                         "f.kiln", "pick");
  // A variable whose name is in parentheses (after a built-in type, where no function's name is).
  expect_parsed_variable("#pragma once\n__device__ int (hits) = 0;\n"
                         "__device__ inline int index() { return hits + threadIdx.x; }\n",
                         "g.kiln", "hits");

  // The same __constant__ in a header the source does not include, pre-included by an option, which
  // the walk does not follow: parsed as well.
  write_text(m_project / "kernels/consts.cuh", "#pragma once\n__constant__ int offset;\n");
  write_text(m_project / "kernels/index.cuh",
             "#pragma once\n__device__ inline int index() { return offset + threadIdx.x; }\n");
  write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [\"sm_90\"]\ninclude_dirs = [\"kernels\"]\n"
                                      "options = [\"--pre-include=consts.cuh\"]\n[[source]]\npath = \"kernels/device.cu\"\n");
  const RunResult through_option = build("e.kiln");
  ASSERT_EQ(through_option.exit_code, 0) << through_option.err;
  EXPECT_NE(through_option.err.find("scan: 0 cached, 1 scanned, 0 request"), std::string::npos) << through_option.err;
  const nlohmann::json e = inspect("e.kiln");
  ASSERT_EQ(e["variables"].size(), 1u) << e.dump();
  EXPECT_EQ(e["variables"][0]["name"], "offset");
  write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [\"sm_80\", \"sm_90\", \"compute_90\"]\n"
                                      "[[source]]\npath = \"kernels/device.cu\"\n");

  // A toolkit header included with quotes, as much real code writes it: the toolkit's, as with angle
  // brackets, so the source is still left to NVRTC's image.
  write_text(m_project / "kernels/index.cuh",
             "#pragma once\n#include \"cuda_fp16.h\"\n"
             "__device__ inline int index() { return __half2int_rn(__int2half_rn(threadIdx.x)); }\n");
  const RunResult quoted_toolkit = build("g.kiln");
  ASSERT_EQ(quoted_toolkit.exit_code, 0) << quoted_toolkit.err;
  EXPECT_NE(quoted_toolkit.err.find("scan: 0 cached, 0 scanned, 1 source left to NVRTC's image"), std::string::npos)
      << quoted_toolkit.err;

  // A template: parsed, and its instantiation is found and named as written.
  write_text(m_project / "kernels/index.cuh",
             "#pragma once\n__device__ inline int index() { return blockIdx.x * blockDim.x + threadIdx.x; }\n");
  write_text(m_project / "kernels/device.cu", "#include \"index.cuh\"\nenum class Mode { fast = 3 };\n"
                                              "template <Mode M> __global__ void run(float* x) { x[index()] = int(M); }\n"
                                              "template __global__ void run<Mode::fast>(float*);\n");
  const RunResult templated = build("d.kiln");
  ASSERT_EQ(templated.exit_code, 0) << templated.err;
  EXPECT_NE(templated.err.find("scan: 0 cached, 1 scanned, 0 request"), std::string::npos) << templated.err;
  const nlohmann::json d = inspect("d.kiln");
  ASSERT_EQ(d["kernels"].size(), 1u) << d.dump();
  const nlohmann::json& spellings = d["kernels"][0]["names"];
  EXPECT_NE(std::find(spellings.begin(), spellings.end(), "run<Mode::fast>"), spellings.end()) << d.dump();
}

// What the source's headers show counts as its own text (plan/unit_text.hpp): host code shown only by
// a project header (Rodinia's dwt2d/common.cu) leaves the source to nvcc's image, unparsed, with the
// kernels a parse would have named; Kiln's runtime used only in a header keeps it parsed, so that the
// instantiation its request names is built.
TEST_F(BuildRoute, WhatTheSourcesHeadersShowCountsAsItsText) {
  write_text(m_project / "kernels/device.cu", "#include \"common.cuh\"\nbool CommonTester::running = false;\n"
                                              "extern \"C\" __global__ void add(float* x) { x[0] += 1; }\n");
  write_text(m_project / "kernels/common.cuh", "#pragma once\n#include \"detail/host.h\"\n"
                                               "struct CommonTester { static bool running; };\n");
  write_text(m_project / "kernels/detail/host.h", "#include <cstdio>\ninline void report() { std::puts(\"done\"); }\n");
  write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [\"sm_90\"]\n[[source]]\npath = \"kernels/device.cu\"\n");
  const RunResult unread = build("a.kiln");
  ASSERT_EQ(unread.exit_code, 0) << unread.err;
  EXPECT_NE(unread.err.find("scan: 0 cached, 0 scanned, 1 source left to nvcc's image"), std::string::npos) << unread.err;
  const RunResult strict = build("b.kiln", {"--strict"});
  ASSERT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.err.find("scan: 0 cached, 1 scanned"), std::string::npos) << strict.err;
  EXPECT_EQ(kernel_names(inspect("a.kiln")), std::vector<std::string>{"add"});
  EXPECT_EQ(kernel_names(inspect("b.kiln")), kernel_names(inspect("a.kiln")));

  // The host source launches; its header asks Kiln's runtime for an instantiation nothing launches.
  write_text(m_project / "kernels/host.cu", R"(#include <cuda_runtime.h>
#include "requests.hpp"
template <int N> __global__ void scale(float* x) { x[threadIdx.x] *= N; }
int main() { scale<2><<<1, 4>>>(nullptr); return 0; }
)");
  write_text(m_project / "kernels/requests.hpp", "#include <kiln/kiln.hpp>\n"
                                                 "inline kiln::Kernel tripled(kiln::Package& p) { return p.kernel(\"scale<3>\"); }\n");
  write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [\"sm_90\"]\ninclude_dirs = [\"<kiln>\"]\n"
                                      "[[source]]\npath = \"kernels/host.cu\"\n[[source]]\npath = \"kernels/device.cu\"\n");
  const RunResult parsed = build("c.kiln");
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  EXPECT_NE(parsed.err.find("scan: 0 cached, 1 scanned, 1 source left to nvcc's image"), std::string::npos) << parsed.err;
  const std::vector<std::string> names = kernel_names(inspect("c.kiln"));
  for (const char* name : {"scale<2>", "scale<3>", "add"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << ": " << nlohmann::json(names).dump();
}

// A name the manifest asks of the source is the scan's to resolve: the source is parsed, and nvcc
// builds the instantiation the text does not make.
TEST_F(BuildRoute, ASourceAskedForANameIsScannedAndBuildsIt) {
  manifest("\"sm_90\"", "instantiate = [\"scale<3>\"]\n");
  const RunResult r = build("a.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("scan: 0 cached, 1 scanned, 1 source left to NVRTC's image, 0 request"), std::string::npos)
      << r.err;
  const std::vector<std::string> names = kernel_names(inspect("a.kiln"));
  for (const char* name : {"scale<2>", "scale<3>", "add"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << ": " << nlohmann::json(names).dump();
}

// A launch under #ifndef __CUDA_ARCH__ is one nvcc's device pass never sees, so nvcc alone would not
// build the kernel; where the scan reads the source (here: --strict), the build names it to nvcc.
TEST_F(BuildRoute, ALaunchTheDevicePassDoesNotSeeIsBuiltWhereTheScanReadsIt) {
  write_text(m_project / "kernels/host.cu", R"(#include <cuda_runtime.h>
template <int N> __global__ void scale(float* x) { x[threadIdx.x] *= N; }
int main() {
  scale<2><<<1, 4>>>(nullptr);
#ifndef __CUDA_ARCH__
  scale<5><<<1, 4>>>(nullptr);
#endif
  return 0;
}
)");
  manifest("\"sm_90\"");
  const RunResult r = build("a.kiln", {"--strict"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> names = kernel_names(inspect("a.kiln"));
  for (const char* name : {"scale<2>", "scale<5>"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << ": " << nlohmann::json(names).dump();
}

// A source the scan cannot read whose text shows host code goes to nvcc at once, as the compiles
// while the scan ran planned it, not to NVRTC first: nvcc runs once for it.
TEST_F(BuildRoute, ASourceTheScanCannotReadGoesByItsText) {
  write_text(m_project / "kernels/host.cu",
             "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = undeclared; }\n"
             "int main() { k<<<1, 1>>>(nullptr); }\n");
  write_text(m_project / "app.cpp", "int main() {}\n");
  write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [\"sm_90\"]\nhost_sources = [\"app.cpp\"]\n"
                                      "[[source]]\npath = \"kernels/host.cu\"\n");
  const RunResult r = build("a.kiln", {}, {"KILN_SPECULATE=0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.find("NVRTC cannot compile it"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("nvrtc:"), std::string::npos) << r.err;
  EXPECT_EQ(count(r.err, "identifier \"undeclared\" is undefined"), 1u) << r.err;
  EXPECT_EQ(runs_for(m_log, "host.cu").size(), 1u) << read_text(m_log);
}

// The same where the host code is in a project header the source includes: its unit's text decides.
TEST_F(BuildRoute, ASourceTheScanCannotReadGoesByItsHeadersText) {
  write_text(m_project / "kernels/host.cu", "#include \"launcher.h\"\n__global__ void k(float* x) { x[0] = undeclared; }\n");
  write_text(m_project / "kernels/launcher.h", "#include <cuda_runtime.h>\n__global__ void k(float* x);\n"
                                               "inline void run() { k<<<1, 1>>>(nullptr); }\n");
  write_text(m_project / "app.cpp", "int main() {}\n");
  write_text(m_project / "kiln.toml", "name = \"p\"\ntargets = [\"sm_90\"]\nhost_sources = [\"app.cpp\"]\n"
                                      "[[source]]\npath = \"kernels/host.cu\"\n");
  const RunResult r = build("a.kiln", {}, {"KILN_SPECULATE=0"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err.find("nvrtc:"), std::string::npos) << r.err;
  EXPECT_EQ(count(r.err, "identifier \"undeclared\" is undefined"), 1u) << r.err;
  EXPECT_EQ(runs_for(m_log, "host.cu").size(), 1u) << read_text(m_log);
}

// The compiles done while the scan runs are a guess from the sources' text: right or wrong, the
// build writes what it writes without them, byte for byte.
TEST_F(BuildRoute, CompilingWhileTheScanRunsNeverChangesThePackage) {
  // A device-only source whose comment launches (the guess must ignore it) and a template a host
  // source requests (the scan adds a name the guess cannot know).
  write_text(m_project / "kernels/device.cu",
             "// add<<<1, 1>>>(x) from the host\ntemplate <int N> __global__ void add(float* x) { x[0] += N; }\n"
             "template __global__ void add<1>(float*);\n");
  write_text(m_project / "app.cpp", "#include <kiln/kiln.hpp>\nvoid f(kiln::Package& p) { p.kernel(\"add<7>\"); }\n");
  write_text(m_project / "kiln.toml",
             "name = \"p\"\ntargets = [\"sm_80\", \"sm_90\"]\nhost_sources = [\"app.cpp\"]\n"
             "[[source]]\npath = \"kernels/host.cu\"\n[[source]]\npath = \"kernels/device.cu\"\n");
  const RunResult guessed = build("a.kiln");
  ASSERT_EQ(guessed.exit_code, 0) << guessed.err;
  const RunResult plain = build("b.kiln", {}, {"KILN_SPECULATE=0"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("(0 while the scan ran)"), std::string::npos) << plain.err;
  // host.cu's jobs are what its text alone makes; device.cu's gain add<7> from app.cpp's request.
  EXPECT_NE(guessed.err.find("compile: 0 cached, 4 compiled (2 while the scan ran)"), std::string::npos) << guessed.err;
  EXPECT_EQ(read_bytes(m_project / "a.kiln"), read_bytes(m_project / "b.kiln"));
  const std::vector<std::string> names = kernel_names(inspect("a.kiln"));
  for (const char* name : {"scale<2>", "add<1>", "add<7>"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name << ": " << nlohmann::json(names).dump();
}

}  // namespace
}  // namespace kiln::test
