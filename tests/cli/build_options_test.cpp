// Every compile option Kiln knows (options/option_table.cpp: NVRTC 13.0's documented options and
// nvcc's language options), in both spellings NVRTC accepts ("--name=value" and "-short", "value" as
// two strings), built in one package with one source per (option, spelling). Where the effect shows
// in the image it is checked there (registers, .ftz and approximate division in the PTX, line
// tables and debug sections in the cubin, kernels a macro or standard brings); everywhere else the
// option is shown to reach the compiler that needs it (`kiln build -v` prints what NVRTC, nvcc and
// nvJitLink get); options that change the language must change what the scan sees too; refused
// options fail the manifest with their reason.
#include "format/package_reader.hpp"
#include "image/cubin_reader.hpp"
#include "image/elf_file.hpp"
#include "kiln_runner.hpp"
#include "options/option_table.hpp"
#include "package/kernel_names.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

// The kernels every case builds. Each condition hides a kernel (an effect the compiler shows) and a
// kernel template nothing instantiates (which the scan reports only when it sees the condition too).
constexpr const char* k_base_source = R"(// In an unnamed namespace: each unit's kernels are its own.
namespace {
#ifdef KILN_OPTION_MACRO
__global__ void defined_by_option(int* x) { x[0] = 1; }
template <int N> __global__ void scan_sees_option_macro(int* x) { x[0] = N; }
#endif
#ifdef KILN_DEFINED
__global__ void defined_by_manifest(int* x) { x[0] = 2; }
template <int N> __global__ void scan_sees_manifest_macro(int* x) { x[0] = N; }
#endif
#if __cplusplus >= 202002L
__global__ void cxx20(int* x) { x[0] = 3; }
template <int N> __global__ void scan_sees_cxx20(int* x) { x[0] = N; }
#endif
#ifdef __CUDACC_RTC_INT128__
__global__ void int128(__int128* x) { x[0] *= 3; }
#endif
__global__ void math(float* x, int n) {
  float a[24];
#pragma unroll
  for (int i = 0; i < 24; ++i) a[i] = x[threadIdx.x * 24 + i];
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < 24; ++i) a[i] = a[i] * a[(i + 7) % 24] + a[(i + 3) % 24];
  }
#pragma unroll
  for (int i = 0; i < 24; ++i) x[threadIdx.x * 24 + i] = a[i];
  x[0] = x[1] / x[2] + sqrtf(x[3]) + x[4] * x[5] + x[6];
}
}  // namespace
)";

constexpr const char* k_pre_include = "namespace {\n__global__ void from_pre_include(int* x) { x[0] = 4; }\n"
                                      "template <int N> __global__ void scan_sees_pre_include(int* x) { x[0] = N; }\n}\n";

// Sources for the options that need code of their own.
const std::map<std::string, std::string> k_special_sources = {
    {"device-as-default-execution-space",
     "namespace {\nfloat twice(float v) { return 2 * v; }\n"
     "__global__ void uses_unannotated(float* x) { x[0] = twice(x[0]); }\n}\n"},
    {"extended-lambda", "namespace {\ntemplate <class F> __global__ void apply(F f, float* x) { x[0] = f(x[0]); }\n"
                        "void run(float* x) { apply<<<1, 1>>>([] __device__ (float v) { return v * 2; }, x); }\n}\n"
                        "void run_it(float* x) { run(x); }\n"},
    {"expt-relaxed-constexpr", "namespace {\nconstexpr float twice(float v) { return 2 * v; }\n"
                               "__global__ void uses_constexpr(float* x) { x[0] = twice(x[0]); }\n}\n"},
};

// What one built unit holds, for the checks.
struct Built {
  std::set<std::string> kernels;           // in the sm_90 image, demangled: "(anonymous namespace)::math"
  int math_registers = 0;                  // of `math` in the sm_90 cubin
  std::set<std::string> cubin_sections;    // of the sm_90 cubin
  std::string ptx;                         // the compute_90 image
  std::string nvrtc, nvcc, link;           // what -v printed for the sm_90 compile
  std::string scan;                        // the build's stderr lines about this source
  std::string everything;                  // the build's whole stderr
};

using Check = std::function<void(const Built& built, const Built& baseline)>;

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Whether the unit holds a kernel of that name (in the unnamed namespace of its source).
bool holds(const Built& b, const std::string& kernel) { return b.kernels.count("(anonymous namespace)::" + kernel) > 0; }

// One row per option that Kiln passes on: the value used, what NVRTC, nvcc and nvJitLink must get,
// and where the effect shows. An option absent here fails the coverage check below.
struct Row {
  std::string value;          // "" for options without one
  std::string nvrtc;          // the exact option NVRTC gets, or "" when it gets none
  std::string nvcc;           // likewise nvcc, for the units it compiles
  std::string link;           // one option nvJitLink gets, or ""
  Check check;                // the effect in the image or the scan; may be empty
};

const std::map<std::string, Row>& rows() {
  static const std::map<std::string, Row> table = {
      {"device-debug", {"", "--device-debug", "", "-g", [](const Built& b, const Built& base) {
         EXPECT_TRUE(b.cubin_sections.count(".debug_info"));
         EXPECT_FALSE(base.cubin_sections.count(".debug_info"));
       }}},
      {"generate-line-info", {"", "--generate-line-info", "", "-lineinfo", [](const Built& b, const Built& base) {
         EXPECT_TRUE(b.cubin_sections.count(".nv_debug_line_sass"));
         EXPECT_FALSE(base.cubin_sections.count(".nv_debug_line_sass"));
       }}},
      {"ptxas-options", {"-O3,-v", "", "", "-Xptxas=-O3", [](const Built& b, const Built& base) {
         EXPECT_FALSE(b.nvrtc.empty()) << "NVRTC still compiles the unit; ptxas runs in nvJitLink";
         // -v reaches ptxas (its report has the spills) and is answered as a note per kernel and cubin.
         EXPECT_TRUE(has(b.link, "-Xptxas=-v")) << b.link;
         EXPECT_TRUE(has(b.scan, ": note: sm_90: '(anonymous namespace)::math': ")) << b.scan;
         EXPECT_TRUE(has(b.scan, " bytes stack frame, 0 bytes spill stores, 0 bytes spill loads, ")) << b.scan;
         EXPECT_FALSE(has(b.everything, "ptxas info")) << b.everything;
         EXPECT_FALSE(has(base.scan, ": note: sm_90: ")) << base.scan;
       }}},
      {"maxrregcount", {"24", "--maxrregcount=24", "", "-maxrregcount=24", [](const Built& b, const Built& base) {
         EXPECT_LE(b.math_registers, 24);
         EXPECT_GT(base.math_registers, 24) << "the kernel must need more registers than the cap";
       }}},
      {"ftz", {"true", "--ftz=true", "", "-ftz=1", [](const Built& b, const Built& base) {
         EXPECT_TRUE(has(b.ptx, ".ftz.f32"));
         EXPECT_FALSE(has(base.ptx, ".ftz.f32"));
       }}},
      {"prec-sqrt", {"false", "--prec-sqrt=false", "", "-prec-sqrt=0", [](const Built& b, const Built& base) {
         EXPECT_TRUE(has(b.ptx, "sqrt.approx"));
         EXPECT_TRUE(has(base.ptx, "sqrt.rn.f32"));
       }}},
      {"prec-div", {"false", "--prec-div=false", "", "-prec-div=0", [](const Built& b, const Built& base) {
         EXPECT_FALSE(has(b.ptx, "div.rn.f32"));
         EXPECT_TRUE(has(base.ptx, "div.rn.f32"));
       }}},
      {"fmad", {"false", "--fmad=false", "", "-fma=0", [](const Built& b, const Built& base) {
         EXPECT_FALSE(has(b.ptx, "fma.rn.f32"));
         EXPECT_TRUE(has(base.ptx, "fma.rn.f32"));
       }}},
      {"use_fast_math", {"", "--use_fast_math", "", "-ftz=1", [](const Built& b, const Built& base) {
         EXPECT_TRUE(has(b.ptx, "div.approx.ftz.f32") || has(b.ptx, "div.full.ftz.f32"));
         EXPECT_TRUE(has(b.ptx, "sqrt.approx.ftz.f32"));
         EXPECT_FALSE(has(base.ptx, ".ftz"));
       }}},
      {"modify-stack-limit", {"false", "--modify-stack-limit=false", "", "", {}}},
      {"gen-opt-lto", {"", "--gen-opt-lto", "", "", {}}},
      {"jump-table-density", {"10", "--jump-table-density=10", "", "-jump-table-density=10", {}}},
      {"no-cache", {"", "--no-cache", "", "-no-cache", {}}},
      {"define-macro", {"KILN_OPTION_MACRO", "-DKILN_OPTION_MACRO", "", "", [](const Built& b, const Built& base) {
         EXPECT_TRUE(holds(b, "defined_by_option"));
         EXPECT_FALSE(holds(base, "defined_by_option"));
         EXPECT_TRUE(has(b.scan, "scan_sees_option_macro' is never instantiated"));
         EXPECT_FALSE(has(base.scan, "scan_sees_option_macro"));
       }}},
      {"undefine-macro", {"KILN_DEFINED", "-UKILN_DEFINED", "", "", [](const Built& b, const Built& base) {
         EXPECT_FALSE(holds(b, "defined_by_manifest"));
         EXPECT_TRUE(holds(base, "defined_by_manifest"));
         EXPECT_FALSE(has(b.scan, "scan_sees_manifest_macro"));
         EXPECT_TRUE(has(base.scan, "scan_sees_manifest_macro' is never instantiated"));
       }}},
      {"pre-include", {"pre.cuh", "--pre-include=pre.cuh", "", "", [](const Built& b, const Built& base) {
         EXPECT_TRUE(holds(b, "from_pre_include"));
         EXPECT_FALSE(holds(base, "from_pre_include"));
         // One warning for the header, wherever it is pre-included: only these cases pre-include it.
         EXPECT_TRUE(has(b.everything, "p/include/pre.cuh:3:34: warning: kernel template '(anonymous "
                                       "namespace)::scan_sees_pre_include' is never instantiated"));
       }}},
      {"no-source-include", {"", "--no-source-include", "", "", {}}},
      {"std", {"c++20", "--std=c++20", "", "", [](const Built& b, const Built& base) {
         EXPECT_TRUE(holds(b, "cxx20"));
         EXPECT_FALSE(holds(base, "cxx20"));
         EXPECT_TRUE(has(b.scan, "scan_sees_cxx20' is never instantiated"));
         EXPECT_FALSE(has(base.scan, "scan_sees_cxx20"));
       }}},
      {"builtin-move-forward", {"false", "--builtin-move-forward=false", "", "", {}}},
      {"builtin-initializer-list", {"false", "--builtin-initializer-list=false", "", "", {}}},
      {"disable-warnings", {"", "--disable-warnings", "", "", {}}},
      {"restrict", {"", "--restrict", "", "", {}}},
      {"device-as-default-execution-space", {"", "--device-as-default-execution-space", "", "",
                                             [](const Built& b, const Built&) {
         EXPECT_TRUE(holds(b, "uses_unannotated"));
         EXPECT_FALSE(has(b.scan, "the scan cannot read")) << "the scan takes -default-device too";
       }}},
      {"device-int128", {"", "--device-int128", "", "", [](const Built& b, const Built& base) {
         EXPECT_TRUE(holds(b, "int128"));
         EXPECT_FALSE(holds(base, "int128"));
       }}},
      {"device-float128", {"", "--device-float128", "", "", {}}},   // built separately: sm_100 and later only
      {"display-error-number", {"", "--display-error-number", "", "", {}}},
      {"no-display-error-number", {"", "--no-display-error-number", "", "", {}}},
      {"diag-error", {"20", "--diag-error=20", "", "", {}}},
      {"diag-suppress", {"177", "--diag-suppress=177", "", "", {}}},
      {"diag-warn", {"177", "--diag-warn=177", "", "", {}}},
      {"brief-diagnostics", {"true", "--brief-diagnostics=true", "", "", {}}},
      {"split-compile", {"2", "--split-compile=2", "", "-split-compile=2", {}}},
      {"minimal", {"", "--minimal", "", "", {}}},
      {"extended-lambda", {"", "", "--extended-lambda", "", [](const Built& b, const Built&) {
         EXPECT_EQ(b.kernels.size(), 1u) << "apply<lambda>, which only nvcc can build";
       }}},
      {"expt-extended-lambda", {"", "", "--expt-extended-lambda", "", {}}},
      {"expt-relaxed-constexpr", {"", "", "--expt-relaxed-constexpr", "", [](const Built& b, const Built&) {
         EXPECT_TRUE(holds(b, "uses_constexpr"));
       }}},
  };
  return table;
}

const char* source_for(const options::OptionSpec& spec) {
  if (spec.name == "expt-extended-lambda") return k_special_sources.at("extended-lambda").c_str();
  const auto special = k_special_sources.find(std::string(spec.name));
  return special == k_special_sources.end() ? k_base_source : special->second.c_str();
}

// The two spellings of an option as TOML strings: "--name=value" (or "--name"), then the short
// name with its value as the next string ("-D", "X").
std::vector<std::string> spellings(const options::OptionSpec& spec, const std::string& value) {
  const std::string short_name(spec.short_name.empty() ? spec.name : spec.short_name);
  if (value.empty()) return {"\"--" + std::string(spec.name) + "\"", "\"-" + short_name + "\""};
  return {"\"--" + std::string(spec.name) + "=" + value + "\"", "\"-" + short_name + "\", \"" + value + "\""};
}

std::string text_of(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// "  nvrtc: ..." under "[i/n] sm_90 <source> (...)" in kiln build -v's output.
std::string verbose_line(const std::string& err, const std::string& source, const std::string& tool) {
  const std::size_t at = err.find(" sm_90 " + source + " (");
  if (at == std::string::npos) return {};
  const std::size_t next = err.find("\n[", at);
  const std::size_t line = err.find("  " + tool + ":", at);
  if (line == std::string::npos || (next != std::string::npos && line > next)) return {};
  return err.substr(line, err.find('\n', line) - line) + " ";
}

Built read_unit(const format::PackageReader& reader, const std::string& source, const std::string& err) {
  Built built;
  for (std::uint32_t u = 0; u < reader.unit_count(); ++u) {
    if (reader.unit(u).source != source) continue;
    for (std::uint32_t i = 0; i < reader.unit(u).image_count; ++i) {
      const std::uint32_t index = reader.unit(u).first_image + i;
      Result<std::vector<std::byte>> read = reader.read_image(index);
      EXPECT_TRUE(read);
      const std::vector<std::byte> bytes = read ? std::move(*read) : std::vector<std::byte>{};
      if (reader.target(reader.image(index).target).name == "compute_90") {
        built.ptx = text_of(bytes);
        continue;
      }
      const Result<image::CubinInfo> cubin = image::read_cubin(bytes, source);
      EXPECT_TRUE(cubin) << source;
      for (const image::CubinSymbol& s : cubin ? cubin->symbols : std::vector<image::CubinSymbol>{}) {
        if (!s.is_kernel) continue;
        const std::string name = package::canonical_kernel_name(s.name);
        built.kernels.insert(name);
        if (name == "(anonymous namespace)::math") built.math_registers = s.registers;
      }
      const Result<image::ElfFile> elf = image::ElfFile::parse(bytes);
      for (const image::ElfSection& section : elf ? elf->sections() : std::vector<image::ElfSection>{})
        built.cubin_sections.insert(std::string(section.name));
    }
  }
  // Messages show the source as seen from where kiln ran: the project is p/.
  const std::string shown = "p/" + source;
  built.everything = err;
  built.nvrtc = verbose_line(err, shown, "nvrtc");
  built.nvcc = verbose_line(err, shown, "nvcc");
  built.link = verbose_line(err, shown, "nvjitlink");
  for (std::size_t at = err.find(shown); at != std::string::npos; at = err.find(shown, at + 1)) {
    const std::size_t begin = err.rfind('\n', at) + 1;
    built.scan += err.substr(begin, err.find('\n', at) - begin) + "\n";
  }
  return built;
}

TEST(BuildOptions, EveryOptionInBothSpellingsHasItsEffectOrReachesItsCompiler) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "include/pre.cuh", k_pre_include);
  std::string manifest = "targets = [\"sm_90\", \"compute_90\"]\ninclude_dirs = [\"include\"]\n"
                         "defines = [\"KILN_DEFINED\"]\n[[source]]\npath = \"cases/baseline.cu\"\n";
  write_text(p / "cases/baseline.cu", k_base_source);
  std::vector<std::pair<const options::OptionSpec*, std::string>> cases;   // (option, source)
  std::set<std::string> covered;
  for (const options::OptionSpec& spec : options::option_table()) {
    // -rdc changes what a unit is (a link group): build_linking_test.cpp checks its effect.
    if (!spec.refused.empty() || spec.name == "device-float128" || spec.nvrtc == options::Nvrtc::planned) continue;
    const auto row = rows().find(std::string(spec.name));
    ASSERT_NE(row, rows().end()) << "no test row for option --" << spec.name;
    covered.insert(std::string(spec.name));
    const std::vector<std::string> written = spellings(spec, row->second.value);
    for (std::size_t s = 0; s < written.size(); ++s) {
      const std::string source = "cases/" + std::string(spec.name) + "-" + std::to_string(s) + ".cu";
      write_text(p / source, source_for(spec));
      manifest += "[[source]]\npath = \"" + source + "\"\noptions = [" + written[s] + "]\n";
      cases.emplace_back(&spec, source);
    }
  }
  write_text(p / "kiln.toml", manifest);
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "-v"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::byte> bytes = read_bytes(dir.path() / "out.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  const Built baseline = read_unit(reader, "cases/baseline.cu", r.err);
  ASSERT_FALSE(baseline.kernels.empty());
  for (const auto& [spec, source] : cases) {
    SCOPED_TRACE(source);
    const Row& row = rows().at(std::string(spec->name));
    const Built built = read_unit(reader, source, r.err);
    if (!row.nvrtc.empty()) {
      EXPECT_TRUE(has(built.nvrtc, " " + row.nvrtc + " ")) << built.nvrtc;
    }
    if (!row.nvcc.empty()) {
      EXPECT_TRUE(has(built.nvcc, " " + row.nvcc + " ")) << built.nvcc;
    }
    if (!row.link.empty()) {
      EXPECT_TRUE(has(built.link, " " + row.link + " ")) << built.link;
    }
    if (row.check) row.check(built, baseline);
  }
  for (const auto& [name, row] : rows()) {
    if (name == "device-float128") continue;   // built on its own below
    EXPECT_TRUE(covered.count(name)) << name << " is not an option Kiln passes on";
  }
}

TEST(BuildOptions, ASourceNvccCompilesTakesTheOptionsInNvccsSpellingWithTheSameEffect) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "k.cu", std::string(k_base_source) + "void launch(float* x) { math<<<1, 1>>>(x, 4); }\n");
  write_text(p / "kiln.toml", "targets = [\"sm_90\", \"compute_90\"]\n[[source]]\npath = \"k.cu\"\n"
                              "options = [\"-use_fast_math\", \"--maxrregcount\", \"24\", \"-D\", \"KILN_OPTION_MACRO\"]\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "-v"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::byte> bytes = read_bytes(dir.path() / "out.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  const Built built = read_unit(reader, "k.cu", r.err);
  EXPECT_TRUE(has(built.nvcc, " --use_fast_math --maxrregcount=24 -DKILN_OPTION_MACRO ")) << built.nvcc;
  EXPECT_TRUE(has(built.link, " -ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1 -maxrregcount=24 ")) << built.link;
  EXPECT_LE(built.math_registers, 24);
  EXPECT_TRUE(has(built.ptx, "div.approx.ftz.f32") || has(built.ptx, "div.full.ftz.f32"));
  EXPECT_TRUE(holds(built, "defined_by_option"));
}

// docs/manifest.md's example: options = ["-use_fast_math", "-std=c++20"], and "-maxrregcount=64" for
// one source. (Before issue 10 every NVRTC build with -use_fast_math failed at the link.)
TEST(BuildOptions, TheManifestDocsExampleBuildsWithItsFastMathEffect) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "kernels/saxpy.cu", k_base_source);
  write_text(p / "kiln.toml", "targets = [\"sm_80\", \"sm_90\", \"compute_80\"]\n"
                              "options = [\"-use_fast_math\", \"-std=c++20\"]\n"
                              "[[source]]\npath = \"kernels/saxpy.cu\"\noptions = [\"-maxrregcount=64\"]\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::byte> bytes = read_bytes(dir.path() / "out.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  for (std::uint32_t i = 0; i < reader.image_count(); ++i) {
    Result<std::vector<std::byte>> read = reader.read_image(i);
    ASSERT_TRUE(read);
    const std::vector<std::byte> image = std::move(*read);
    const std::string target(reader.target(reader.image(i).target).name);
    if (target == "compute_80") {
      const std::string ptx = text_of(image);
      EXPECT_TRUE(has(ptx, "div.approx.ftz.f32") || has(ptx, "div.full.ftz.f32")) << "fast division";
      EXPECT_TRUE(has(ptx, "sqrt.approx.ftz.f32"));
      continue;
    }
    const Result<image::CubinInfo> cubin = image::read_cubin(image, target);
    ASSERT_TRUE(cubin);
    for (const image::CubinSymbol& s : cubin->symbols) {
      if (!s.is_kernel) continue;
      EXPECT_LE(s.registers, 64) << target << " " << s.name;
    }
  }
  EXPECT_EQ(run_kiln({"verify", "out.kiln"}, dir.path()).exit_code, 0);
}

TEST(BuildOptions, Float128ReachesNvrtcWhichAllowsItFromSm100On) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "k.cu", "extern \"C\" __global__ void k(__float128* x) { x[0] *= 2; }\n");
  write_text(p / "kiln.toml", "targets = [\"sm_100\"]\n[[source]]\npath = \"k.cu\"\noptions = [\"-device-float128\"]\n");
  ASSERT_EQ(run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path()).exit_code, 0);
  write_text(p / "kiln.toml", "targets = [\"sm_90\"]\n[[source]]\npath = \"k.cu\"\noptions = [\"-device-float128\"]\n");
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--device-float128 is not supported"), std::string::npos) << r.err;
}

TEST(BuildOptions, RefusedOptionsFailTheManifestWithTheirReasonInEitherSpelling) {
  ScratchDir dir;
  const fs::path p = dir.path() / "p";
  write_text(p / "k.cu", "extern \"C\" __global__ void k(int* x) { x[0] = 1; }\n");
  std::string manifest = "targets = [\"sm_90\"]\n";
  std::size_t refused = 0;
  for (const options::OptionSpec& spec : options::option_table()) {
    if (spec.refused.empty()) continue;
    const std::string value = spec.values == options::Values::boolean ? "true" : "1";
    const bool takes = spec.takes == options::Takes::value || spec.takes == options::Takes::attached;
    for (const std::string& written : spellings(spec, takes ? value : ""))
      manifest += "[[source]]\npath = \"k" + std::to_string(refused++) + ".cu\"\noptions = [" + written + "]\n";
  }
  for (std::size_t i = 0; i < refused; ++i) write_text(p / ("k" + std::to_string(i) + ".cu"), "// empty\n");
  write_text(p / "kiln.toml", manifest);
  const RunResult r = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 3);
  for (const options::OptionSpec& spec : options::option_table()) {
    if (spec.refused.empty()) continue;
    EXPECT_NE(r.err.find("option '--" + std::string(spec.name)), std::string::npos) << spec.name << "\n" << r.err;
    EXPECT_NE(r.err.find(std::string(spec.refused)), std::string::npos) << spec.name;
  }
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln"));
}

}  // namespace
}  // namespace kiln::test
