// kiln build on device-only sources written for NVRTC or Jitify that include standard headers
// (docs/scan.md, "Standard headers in device-only sources"): NVRTC tries such a unit once, for its
// first target, and its rejection sends the unit to nvcc for every target, remembered by content for
// the next build from any directory; nvcc lets their device code call std::numeric_limits as NVRTC's
// JIT-safe headers do; a -default-device source, which nvcc cannot take, compiles with NVRTC and Kiln's
// JIT-safe headers; and both routes give the kernels the same code and the values the host computes.
#include "kiln_runner.hpp"
#include "package_kernels.hpp"

#include "format/package_reader.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// What NVRTC-style code asks of <limits> and <cmath> in device code, in a kernel named `name`; the
// helpers are unannotated where `unannotated` (a -default-device source), else __device__.
std::string limits_kernel(const std::string& name, bool unannotated) {
  const std::string space = unannotated ? "" : "__device__ ";
  return "#include <cmath>\n#include <limits>\n"
         "template <class T> " + space + "T biggest() { return std::numeric_limits<T>::max(); }\n" +
         space + "bool finite(float v) { return std::isfinite(v); }\n"
         "extern \"C\" __global__ void " + name + "(float* f, double* d, const float* in) {\n"
         "  f[0] = biggest<float>();\n"
         "  f[1] = std::numeric_limits<float>::epsilon();\n"
         "  f[2] = std::numeric_limits<float>::lowest();\n"
         "  f[3] = finite(in[0]) ? std::sqrt(in[0]) : std::numeric_limits<float>::infinity();\n"
         "  f[4] = std::isfinite(in[1]) ? 5.0f : 6.0f;\n"
         "  d[0] = biggest<double>();\n"
         "  d[1] = std::numeric_limits<double>::epsilon();\n"
         "  d[2] = std::fmin(static_cast<double>(in[2]), std::numeric_limits<double>::min());\n"
         "}\n";
}

// A device-only source nvcc compiles with or without relaxed constexpr: <cmath> alone.
constexpr const char* k_cmath_kernel =
    "#include <cmath>\nextern \"C\" __global__ void fill(float* x) { x[0] = std::sqrt(x[1]) + std::exp(x[2]); }\n";

// The PTX of `source`'s unit for `target` in `package`.
std::string ptx_of(const fs::path& package, const std::string& source, const std::string& target) {
  const std::vector<std::byte> bytes = read_bytes(package);
  format::PackageReader reader;
  if (!reader.open(bytes)) return "";
  for (std::uint32_t u = 0; u < reader.unit_count(); ++u) {
    if (reader.unit(u).source != source) continue;
    for (std::uint32_t i = 0; i < reader.unit(u).image_count; ++i) {
      const std::uint32_t index = reader.unit(u).first_image + i;
      if (reader.target(reader.image(index).target).name != target) continue;
      const Result<std::vector<std::byte>> image = reader.read_image(index);
      if (!image) continue;
      return {reinterpret_cast<const char*>(image->data()), image->size()};
    }
  }
  return "";
}

// The body of kernel `name` in `ptx`, from its .entry to the end, with its name taken out.
std::string kernel_body(const std::string& ptx, const std::string& name) {
  const std::size_t entry = ptx.find(".entry " + name + "(");
  if (entry == std::string::npos) return "";
  std::string body = ptx.substr(entry, ptx.find("\n}", entry) - entry);
  for (std::size_t at = body.find(name); at != std::string::npos; at = body.find(name, at)) body.replace(at, name.size(), "K");
  return body;
}

// How PTX may spell a float or double constant: its bits in decimal (mov.u32/u64), or 0fXXXXXXXX / 0dX...
bool holds_float(const std::string& ptx, float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  char hex[16];
  std::snprintf(hex, sizeof hex, "0f%08X", bits);
  return has(ptx, " " + std::to_string(bits) + ";") || has(ptx, " " + std::to_string(static_cast<std::int32_t>(bits)) + ";") ||
         has(ptx, hex);
}
bool holds_double(const std::string& ptx, double value) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
  char hex[24];
  std::snprintf(hex, sizeof hex, "0d%016llX", static_cast<unsigned long long>(bits));
  return has(ptx, " " + std::to_string(bits) + ";") || has(ptx, " " + std::to_string(static_cast<std::int64_t>(bits)) + ";") ||
         has(ptx, hex);
}

class BuildStdHeaders : public ::testing::Test {
protected:
  BuildStdHeaders() : m_cache(m_dir.path() / "cache") {}

  // A project at `at` of `sources` (path -> text), each a [[source]] with `options` where given.
  static void write_project(const fs::path& at, const std::vector<std::pair<std::string, std::string>>& sources,
                            const std::string& targets, const std::map<std::string, std::string>& options = {}) {
    std::string manifest = "targets = " + targets + "\n";
    for (const auto& [path, text] : sources) {
      write_text(at / path, text);
      if (!path.ends_with(".cu")) continue;
      manifest += "[[source]]\npath = \"" + path + "\"\n";
      if (const auto o = options.find(path); o != options.end()) manifest += "options = " + o->second + "\n";
    }
    write_text(at / "kiln.toml", manifest);
  }
  // kiln build -v of `manifest` (relative to `cwd`), writing out.kiln beside it.
  RunResult build(const fs::path& cwd, const std::string& manifest = "kiln.toml") {
    const std::string out = (fs::path(manifest).parent_path() / "out.kiln").string();
    return run_kiln({"build", manifest, "-o", out, "-v"}, cwd, {"KILN_CACHE_DIR=" + m_cache.string()});
  }

  ScratchDir m_dir;
  fs::path m_cache;
};

constexpr const char* k_rejected = "(NVRTC rejected it: nvcc follows)";
constexpr const char* k_three_targets = "[\"sm_80\", \"sm_90\", \"compute_90\"]";

TEST_F(BuildStdHeaders, NvrtcTriesADeviceOnlySourceOnceAndNvccBuildsEveryTarget) {
  const fs::path p = m_dir.path() / "p";
  write_project(p, {{"fill.cu", k_cmath_kernel}}, k_three_targets);
  const RunResult r = build(p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.err, k_rejected), 1u) << "one NVRTC attempt for the unit, not one per target\n" << r.err;
  EXPECT_TRUE(has(r.err, "compile: 0 cached, 4 compiled")) << "NVRTC once, nvcc for each of 3 targets\n" << r.err;
  EXPECT_TRUE(has(r.err, "fill.cu: note: NVRTC cannot compile it (fill.cu:1: catastrophic error: cannot open source "
                         "file \"cmath\"")) << r.err;
  EXPECT_EQ(kernels_of(p / "out.kiln"), (std::set<std::string>{"fill"}));
  EXPECT_EQ(run_kiln({"verify", "out.kiln"}, p).exit_code, 0);
}

// A source that names only headers NVRTC can open (its own, the toolkit's) is no suspect: all its
// targets compile in one round, as before, with no first target tried alone.
TEST_F(BuildStdHeaders, ASourceNamingOnlyHeadersNvrtcOpensCompilesEveryTargetInOneRound) {
  const fs::path p = m_dir.path() / "p";
  write_project(p, {{"own.cuh", "#pragma once\n#include <cuda_fp16.h>\n#define HALF(v) __float2half(v)\n"},
                    {"half.cu", "#include \"own.cuh\"\nextern \"C\" __global__ void to_half(__half* x) { x[0] = HALF(2.0f); }\n"}},
                k_three_targets);
  const RunResult r = build(p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.err, "[3/3] ")) << r.err;
  EXPECT_FALSE(has(r.err, "[1/1] sm_80")) << r.err;
  EXPECT_EQ(count(r.err, "\n  nvrtc:"), 3u) << r.err;
}

TEST_F(BuildStdHeaders, TheVerdictIsRememberedByContentForACopyOfTheTreeElsewhere) {
  const fs::path p = m_dir.path() / "p";
  write_project(p, {{"kernels/fill.cu", k_cmath_kernel}}, k_three_targets);
  const RunResult first = build(m_dir.path(), "p/kiln.toml");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(has(first.err, "p/kernels/fill.cu: note: NVRTC cannot compile it (p/kernels/fill.cu:1: catastrophic "
                             "error: cannot open source file \"cmath\"")) << first.err;
  // Another directory, at another depth: no message context, no path in the verdict's key.
  const fs::path copy = m_dir.path() / "elsewhere" / "deeper" / "q";
  fs::create_directories(copy.parent_path());
  fs::copy(p, copy, fs::copy_options::recursive);
  fs::remove(copy / "out.kiln");
  const RunResult r = build(copy);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.err, k_rejected), 0u) << "the remembered verdict sends the unit to nvcc at once\n" << r.err;
  EXPECT_TRUE(has(r.err, "compile: 3 cached, 0 compiled")) << r.err;
  EXPECT_TRUE(has(r.err, "kernels/fill.cu: note: NVRTC cannot compile it (kernels/fill.cu:1: catastrophic error: "
                         "cannot open source file \"cmath\"")) << r.err;
  EXPECT_TRUE(has(r.err, "; remembered from an earlier build), so nvcc did")) << r.err;
  EXPECT_EQ(kernels_of(copy / "out.kiln"), (std::set<std::string>{"fill"}));
}

TEST_F(BuildStdHeaders, TheVerdictIsTakenAgainWhenAHeaderTheUnitReadsChanges) {
  const fs::path p = m_dir.path() / "p";
  write_project(p, {{"common.cuh", "#include <cmath>\n#define ROOT(v) std::sqrt(v)\n"},
                    {"root.cu", "#include \"common.cuh\"\nextern \"C\" __global__ void root(float* x) { x[0] = ROOT(x[1]); }\n"}},
                "[\"sm_80\", \"sm_90\"]");
  const RunResult first = build(p);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(count(first.err, k_rejected), 1u) << first.err;
  // The header no longer needs a standard one: NVRTC takes the unit, as a cold build would.
  write_text(p / "common.cuh", "#define ROOT(v) sqrtf(v)\n");
  const RunResult second = build(p);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(count(second.err, k_rejected), 0u) << second.err;
  EXPECT_FALSE(has(second.err, "NVRTC cannot compile it")) << second.err;
  EXPECT_EQ(count(second.err, "\n  nvrtc:"), 2u) << second.err;
  EXPECT_EQ(count(second.err, "\n  nvcc:"), 0u) << second.err;
}

TEST_F(BuildStdHeaders, ADeviceOnlySourceCallingNumericLimitsAndIsfiniteBuildsThroughNvcc) {
  const fs::path p = m_dir.path() / "p";
  write_project(p, {{"limits.cu", limits_kernel("fill", false)}}, "[\"sm_90\", \"compute_90\"]");
  const RunResult r = build(p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(has(r.err, "--expt-relaxed-constexpr' can be used")) << r.err;
  EXPECT_TRUE(has(r.err, "--expt-relaxed-constexpr")) << "nvcc gets it for a source written for NVRTC\n" << r.err;
  const std::string body = kernel_body(ptx_of(p / "out.kiln", "limits.cu", "compute_90"), "fill");
  ASSERT_FALSE(body.empty()) << r.err;
  EXPECT_TRUE(holds_float(body, std::numeric_limits<float>::max())) << body;
  EXPECT_TRUE(holds_float(body, std::numeric_limits<float>::epsilon())) << body;
  EXPECT_TRUE(holds_float(body, std::numeric_limits<float>::lowest())) << body;
  EXPECT_TRUE(holds_float(body, std::numeric_limits<float>::infinity())) << body;
  EXPECT_TRUE(holds_double(body, std::numeric_limits<double>::max())) << body;
  EXPECT_TRUE(holds_double(body, std::numeric_limits<double>::epsilon())) << body;
  EXPECT_TRUE(holds_double(body, std::numeric_limits<double>::min())) << body;
}

TEST_F(BuildStdHeaders, DefaultDeviceSourcesIncludingLimitsAndCmathBuildWithNvrtcAndKilnsJitSafeHeaders) {
  const fs::path p = m_dir.path() / "p";
  write_project(p, {{"jit.cu", limits_kernel("fill", true)}}, k_three_targets, {{"jit.cu", "[\"-default-device\"]"}});
  const RunResult r = build(p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count(r.err, "\n  nvrtc:"), 3u) << r.err;
  EXPECT_EQ(count(r.err, k_rejected), 0u) << r.err;
  EXPECT_FALSE(has(r.err, "warning")) << "the scan reads it too\n" << r.err;
  EXPECT_EQ(kernels_of(p / "out.kiln"), (std::set<std::string>{"fill"}));
  EXPECT_EQ(run_kiln({"verify", "out.kiln"}, p).exit_code, 0);
  // Kiln's headers are no input of the package: the depfile names the source alone.
  EXPECT_FALSE(has(read_text(p / "out.kiln.d"), "jit-safe")) << read_text(p / "out.kiln.d");
}

// Every header Kiln ships, in one -default-device source that uses a name of each kind: NVRTC
// compiles it, and the scan reads it (no warning), with clang's real standard library.
TEST_F(BuildStdHeaders, ADefaultDeviceSourceIncludingEveryJitSafeHeaderBuildsAndIsScanned) {
  std::string source;
  for (const char* h : {"array", "assert.h", "bit", "cassert", "cfloat", "climits", "cmath", "complex", "cstddef",
                        "cstdint", "cstdio", "cstdlib", "cstring", "float.h", "functional", "initializer_list",
                        "iterator", "limits", "limits.h", "math.h", "numeric", "optional", "ratio", "span", "stddef.h",
                        "stdint.h", "stdio.h", "stdlib.h", "string.h", "tuple", "type_traits", "utility", "variant"})
    source += "#include <" + std::string(h) + ">\n";
  source += "std::tuple<int, float> split(float v) { return {static_cast<int>(v), v - static_cast<int>(v)}; }\n"
            "template <typename T> T clamp_big(T v) { return std::fmin(v, std::numeric_limits<T>::max()); }\n"
            "template <typename T> __global__ void all(T* x, int n) {\n"
            "  assert(n > 0);\n"
            "  std::array<T, 2> a{T(1), T(2)};\n"
            "  const std::int32_t i = INT_MAX / 2; const std::size_t s = sizeof(a);\n"
            "  x[0] = clamp_big(x[1]) + std::get<1>(split(x[2])) + std::accumulate(a.begin(), a.end(), T(0)) + i + s;\n"
            "  x[1] = std::isfinite(x[3]) ? FLT_EPSILON : -INFINITY;\n"
            "  x[2] = std::is_same_v<T, float> ? std::plus<T>{}(x[4], T(1)) : std::complex<T>(1, 2).imag();\n"
            "  if (n == 7) printf(\"%d\\n\", std::abs(-n));\n"
            "}\n";
  const fs::path p = m_dir.path() / "p";
  write_text(p / "every.cu", source);
  write_text(p / "kiln.toml", "targets = [\"sm_90\"]\n[[source]]\npath = \"every.cu\"\ninstantiate = [\"all<float>\", "
                              "\"all<double>\"]\noptions = [\"-default-device\"]\n");
  const RunResult r = build(p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(has(r.err, "warning")) << r.err;
  EXPECT_EQ(kernels_of(p / "out.kiln"), (std::set<std::string>{"all<float>", "all<double>"}));
}

// The two routes give the same kernel: nvcc with the host's standard library and relaxed constexpr
// for a device-only source, NVRTC with Kiln's JIT-safe headers for a -default-device one.
TEST_F(BuildStdHeaders, BothRoutesGiveTheKernelTheSameCodeAndTheHostsValues) {
  const fs::path p = m_dir.path() / "p";
  write_project(p, {{"device_only.cu", limits_kernel("fill_nvcc", false)}, {"default_device.cu", limits_kernel("fill_nvrtc", true)}},
                "[\"sm_90\", \"compute_90\"]", {{"default_device.cu", "[\"-default-device\"]"}});
  const RunResult r = build(p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string nvcc = kernel_body(ptx_of(p / "out.kiln", "device_only.cu", "compute_90"), "fill_nvcc");
  const std::string nvrtc = kernel_body(ptx_of(p / "out.kiln", "default_device.cu", "compute_90"), "fill_nvrtc");
  ASSERT_FALSE(nvcc.empty()) << r.err;
  EXPECT_EQ(nvrtc, nvcc);
  EXPECT_TRUE(holds_float(nvrtc, std::numeric_limits<float>::max())) << nvrtc;
  EXPECT_TRUE(holds_double(nvrtc, std::numeric_limits<double>::epsilon())) << nvrtc;
}

// Kiln's headers come last: a project's own <limits> (its own JIT-safe headers) is found first.
TEST_F(BuildStdHeaders, AProjectsOwnStandardHeaderComesBeforeKilnsJitSafeOne) {
  const fs::path p = m_dir.path() / "p";
  write_text(p / "own/limits", "#pragma once\n#define OWN_LIMITS 1\nnamespace std { template <class T> struct "
                               "numeric_limits { static constexpr T max() { return T(7); } }; }\n");
  write_project(p, {{"jit.cu", "#include <limits>\n#ifndef OWN_LIMITS\n#error Kiln's <limits> came first\n#endif\n"
                               "extern \"C\" __global__ void seven(float* x) { x[0] = std::numeric_limits<float>::max(); }\n"}},
                "[\"compute_90\"]\ninclude_dirs = [\"own\"]", {{"jit.cu", "[\"-default-device\"]"}});
  const RunResult r = build(p);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(holds_float(kernel_body(ptx_of(p / "out.kiln", "jit.cu", "compute_90"), "seven"), 7.0f));
}

}  // namespace
}  // namespace kiln::test
