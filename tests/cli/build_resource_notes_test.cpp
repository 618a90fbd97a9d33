// kiln build with -Xptxas=-v: a note per kernel and cubin with what ptxas -v reports, read from the
// cubin and (its spills) from ptxas's report in the compile's log (cli/resource_notes.hpp), after
// the build's warnings and before its closing lines; the same notes on a cache hit; none for PTX, none without the option, none under -q; the register counts
// those cuobjdump reads from the same cubins.
#include "cuda_tools.hpp"
#include "kiln_runner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

// NVRTC's unit: two kernels, one with a launch bound and shared memory, and a warning (an unused variable).
constexpr const char* k_nvrtc_source = R"(
extern "C" __global__ void __launch_bounds__(128) tiled(float* out, int n) {
  __shared__ float tile[256];
  int never_used;
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + n) & 255];
}
extern "C" __global__ void plain(float* out) { out[threadIdx.x] = 1.0f; }
)";

// nvcc's unit: host code launches the kernel.
constexpr const char* k_nvcc_source = R"(
#include <cuda_runtime.h>
extern "C" __global__ void from_host(float* x) { x[threadIdx.x] *= 2.0f; }
void launch(float* x) { from_host<<<1, 32>>>(x); }
)";

// A device link group: the kernel calls a function another source defines.
constexpr const char* k_group_use = R"(
extern __device__ float twice(float v);
extern "C" __global__ void linked(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }
)";
constexpr const char* k_group_define = "__device__ float twice(float v) { return 2.0f * v; }\n";

std::string manifest(const std::string& options) {
  return "name = \"notes\"\ntargets = [\"sm_80\", \"sm_90\", \"compute_80\"]\noptions = [" + options +
         "]\n[[source]]\npath = \"k.cu\"\n[[source]]\npath = \"host.cu\"\n"
         "[[source]]\npath = \"use.cu\"\nlink_group = \"g\"\n[[source]]\npath = \"define.cu\"\nlink_group = \"g\"\n";
}

std::vector<std::string> lines_with(const std::string& text, const std::string& part) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(part) != std::string::npos) out.push_back(line);
  return out;
}

std::vector<std::string> notes_of(const std::string& err) { return lines_with(err, ": note: "); }

class BuildResourceNotes : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = new ScratchDir;
    write_text(s_dir->path() / "project/k.cu", k_nvrtc_source);
    write_text(s_dir->path() / "project/host.cu", k_nvcc_source);
    write_text(s_dir->path() / "project/use.cu", k_group_use);
    write_text(s_dir->path() / "project/define.cu", k_group_define);
    write_text(s_dir->path() / "project/kiln.toml", manifest("\"-Xptxas=-v\""));
    s_cold = new RunResult(build({"--json", "--summary"}));
  }
  static void TearDownTestSuite() {
    delete s_cold;
    delete s_dir;
  }
  static RunResult build(std::vector<std::string> extra = {}, const std::vector<std::string>& env = {}) {
    extra.insert(extra.begin(), {"build", "-o", "../notes.kiln"});
    return run_kiln(extra, s_dir->path() / "project", env);
  }
  static ScratchDir* s_dir;
  static RunResult* s_cold;
};

ScratchDir* BuildResourceNotes::s_dir = nullptr;
RunResult* BuildResourceNotes::s_cold = nullptr;

TEST_F(BuildResourceNotes, EachKernelOfEachCubinOnce) {
  ASSERT_EQ(s_cold->exit_code, 0) << s_cold->err;
  const std::vector<std::string> notes = notes_of(s_cold->err);
  // The spills come from ptxas's own report (no cubin has them), for NVRTC's units, nvcc's and the group's.
  const std::regex shape(R"((k\.cu|host\.cu|link group 'g'): note: (sm_80|sm_90): '([a-z_]+)': (\d+) registers, \d+ bytes )"
                         R"(stack frame, \d+ bytes spill stores, \d+ bytes spill loads, \d+ bytes cumulative stack, \d+ bytes shared, \d+ bytes local, \d+ bytes )"
                         R"(constant\[0\](, max 128 threads)?)");
  std::set<std::string> seen;
  for (const std::string& note : notes) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(note, m, shape)) << note;
    EXPECT_TRUE(seen.insert(m[1].str() + " " + m[2].str() + " " + m[3].str()).second) << "twice: " << note;
    EXPECT_GT(std::stoi(m[4]), 0) << note;
    EXPECT_EQ(m[5].matched, m[3] == "tiled") << note;
  }
  // NVRTC's unit, nvcc's, and the link group once (its two sources hold one kernel), for each cubin;
  // the PTX target has none: ptxas did not run.
  EXPECT_EQ(seen, (std::set<std::string>{"k.cu sm_80 tiled", "k.cu sm_90 tiled", "k.cu sm_80 plain",
                                         "k.cu sm_90 plain", "host.cu sm_80 from_host", "host.cu sm_90 from_host",
                                         "link group 'g' sm_80 linked", "link group 'g' sm_90 linked"}))
      << s_cold->err;
  EXPECT_TRUE(lines_with(s_cold->err, "compute_80").empty()) << s_cold->err;
  for (const std::string& note : notes) {
    // float[256]; sm_90's cubins add 1 KiB the system reserves (kiln inspect's tests see the same).
    if (note.find("sm_80: 'tiled'") != std::string::npos) {
      EXPECT_NE(note.find(" 1024 bytes shared"), std::string::npos) << note;
    }
  }
}

TEST_F(BuildResourceNotes, AfterTheWarningsBeforeTheClosingLines) {
  ASSERT_EQ(s_cold->exit_code, 0) << s_cold->err;
  const std::size_t warning = s_cold->err.find("warning");
  const std::size_t first_note = s_cold->err.find(": note: ");
  const std::size_t last_note = s_cold->err.rfind(": note: ");
  const std::size_t summary = s_cold->err.find("kiln: wrote ");
  const std::size_t count = s_cold->err.find("1 warning (above)");
  ASSERT_NE(warning, std::string::npos) << "the unused variable's warning: " << s_cold->err;
  ASSERT_NE(first_note, std::string::npos) << s_cold->err;
  ASSERT_NE(summary, std::string::npos) << s_cold->err;
  ASSERT_NE(count, std::string::npos) << s_cold->err;
  EXPECT_LT(warning, first_note) << s_cold->err;
  EXPECT_LT(last_note, summary) << s_cold->err;
  EXPECT_LT(summary, count) << s_cold->err;
}

TEST_F(BuildResourceNotes, ACacheHitPrintsTheSameNotes) {
  ASSERT_EQ(s_cold->exit_code, 0) << s_cold->err;
  const RunResult warm = build({"--json"});
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  // The parsed reports are kept: a loop over a temporary's member would read freed memory.
  const nlohmann::json warm_report = nlohmann::json::parse(warm.out), cold_report = nlohmann::json::parse(s_cold->out);
  ASSERT_EQ(warm_report["units"].size(), 3u) << warm.out;   // k.cu, host.cu, the group
  for (const nlohmann::json& unit : warm_report["units"])
    for (const nlohmann::json& image : unit["images"]) EXPECT_EQ(image["cache"], "hit") << unit.dump();
  EXPECT_EQ(notes_of(warm.err), notes_of(s_cold->err));
  for (const nlohmann::json& unit : cold_report["units"])
    for (const nlohmann::json& image : unit["images"]) EXPECT_EQ(image["cache"], "miss") << unit.dump();
}

TEST_F(BuildResourceNotes, NoneWithoutTheOptionNorUnderQuiet) {
  ASSERT_EQ(s_cold->exit_code, 0) << s_cold->err;
  const RunResult quiet = build({"-q"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  ScratchDir other;
  for (const char* name : {"k.cu", "host.cu", "use.cu", "define.cu"})
    fs::copy_file(s_dir->path() / "project" / name, other.path() / name);
  write_text(other.path() / "kiln.toml", manifest("\"-Xptxas=-O3\""));
  const RunResult plain = run_kiln({"build"}, other.path());
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(notes_of(plain.err).empty()) << plain.err;
  EXPECT_NE(plain.err.find("warning"), std::string::npos) << plain.err;
}

TEST_F(BuildResourceNotes, EverySpellingOfTheOptionAsksForThem) {
  for (const std::string& options : {std::string("\"-Xptxas\", \"-v\""), std::string("\"--ptxas-options=--verbose\""),
                                     std::string("\"-Xptxas=-O3,-v\"")}) {
    ScratchDir other;
    write_text(other.path() / "k.cu", "extern \"C\" __global__ void one(float* x) { x[0] = 1.0f; }\n");
    write_text(other.path() / "kiln.toml",
               "targets = [\"sm_90\"]\noptions = [" + options + "]\n[[source]]\npath = \"k.cu\"\n");
    const RunResult r = run_kiln({"build"}, other.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(notes_of(r.err).size(), 1u) << options << "\n" << r.err;
  }
}

// ptxas gets the -v (its report has the spills; the cubin records the option), so the option is part
// of the cache's key: turning it on compiles again, and turning it off again finds the first build's
// entries.
TEST_F(BuildResourceNotes, TurningItOnCompilesAgainAndOffFindsTheFirstBuild) {
  ScratchDir other;
  write_text(other.path() / "k.cu", k_nvrtc_source);
  write_text(other.path() / "host.cu", k_nvcc_source);
  const auto with_options = [&](const std::string& options) {
    write_text(other.path() / "kiln.toml", "targets = [\"sm_90\"]\noptions = [" + options +
                                               "]\n[[source]]\npath = \"k.cu\"\n[[source]]\npath = \"host.cu\"\n");
  };
  const auto caches = [](const RunResult& r) {
    std::vector<std::string> out;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    for (const nlohmann::json& unit : report["units"])
      for (const nlohmann::json& image : unit["images"]) out.push_back(image["cache"]);
    return out;
  };
  with_options("\"-Xptxas=-O3\"");
  const RunResult before = run_kiln({"build", "-o", "before.kiln", "--json"}, other.path());
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_TRUE(notes_of(before.err).empty()) << before.err;
  with_options("\"-Xptxas=-O3,-v\"");
  const RunResult after = run_kiln({"build", "-o", "after.kiln", "--json"}, other.path());
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(caches(after), (std::vector<std::string>{"miss", "miss"})) << after.out;
  EXPECT_EQ(notes_of(after.err).size(), 3u) << after.err;   // tiled, plain, from_host
  with_options("\"-Xptxas=-O3\"");
  const RunResult off = run_kiln({"build", "-o", "off.kiln", "--json"}, other.path());
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_EQ(caches(off), (std::vector<std::string>{"hit", "hit"})) << off.out;
  EXPECT_TRUE(notes_of(off.err).empty()) << off.err;
}

// A kernel that spills (a dynamically indexed local array under -maxrregcount=32), compiled by NVRTC
// (and nvJitLink) and by nvcc (its source has host code): each note has the spill figures that
// `nvcc -cubin -Xptxas -v` prints for it, a cache hit prints the same notes, and ptxas's own info
// lines are not printed beside them.
constexpr const char* k_spilling_kernel = R"(
extern "C" __global__ void NAME(float* out, const int* idx, int n) {
  float a[64];
  for (int i = 0; i < 64; ++i) a[i] = out[i * n + threadIdx.x];
  float s = 0;
  for (int i = 0; i < 64; ++i) s += a[idx[i]] * a[(i * 7) & 63];
  out[threadIdx.x] = s;
}
)";

std::string spilling_source(const std::string& name) {
  std::string text = k_spilling_kernel;
  text.replace(text.find("NAME"), 4, name);
  return text;
}

// "540 bytes spill stores, 592 bytes spill loads" as nvcc's ptxas reports it for `kernel` in `source`.
std::string nvcc_spills(const fs::path& source, const std::string& kernel, const std::string& target) {
  const fs::path log = source.string() + "." + target + ".ptxas.txt";
  const std::string command = "'" + std::string(KILN_NVCC) + "' -cubin -arch=" + target + " -Xptxas -v -maxrregcount=32 '" +
                              source.string() + "' -o '" + source.string() + "." + target + ".cubin' 2> '" + log.string() + "'";
  if (std::system(command.c_str()) != 0) return "nvcc failed: " + command;
  const std::string text = read_text(log);
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("Function properties for " + kernel + R"(\n\s*\d+ bytes stack frame, (\d+ bytes spill stores, \d+ bytes spill loads))")))
    return "no spill line in " + text;
  return m[1].str();
}

TEST_F(BuildResourceNotes, SpillsAreThoseNvccsPtxasReportsAlsoOnAHit) {
  ScratchDir other;
  write_text(other.path() / "spill.cu", spilling_source("spills"));
  write_text(other.path() / "spill_host.cu", "#include <cuda_runtime.h>\n" + spilling_source("spills_from_host") +
                                                 "void launch(float* x, const int* i) { spills_from_host<<<1, 32>>>(x, i, 1); }\n");
  write_text(other.path() / "kiln.toml",
             "targets = [\"sm_80\", \"sm_90\"]\noptions = [\"-Xptxas=-v\", \"-maxrregcount=32\"]\n"
             "[[source]]\npath = \"spill.cu\"\n[[source]]\npath = \"spill_host.cu\"\n");
  const RunResult cold = run_kiln({"build", "-v"}, other.path());
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_NE(cold.err.find(" sm_90 spill_host.cu ("), std::string::npos) << cold.err;
  EXPECT_NE(cold.err.find("\n  nvcc: "), std::string::npos) << "nvcc compiles the unit with host code: " << cold.err;
  const std::vector<std::string> notes = notes_of(cold.err);
  ASSERT_EQ(notes.size(), 4u) << cold.err;
  for (const auto& [source, kernel] : {std::pair<std::string, std::string>{"spill.cu", "spills"}, {"spill_host.cu", "spills_from_host"}})
    for (const char* target : {"sm_80", "sm_90"}) {
      const std::string expected = nvcc_spills(other.path() / source, kernel, target);
      ASSERT_TRUE(std::regex_match(expected, std::regex(R"([1-9]\d* bytes spill stores, [1-9]\d* bytes spill loads)")))
          << "the kernel must spill: " << expected;
      const std::vector<std::string> found = lines_with(cold.err, source + ": note: " + target + ": '" + kernel + "': ");
      ASSERT_EQ(found.size(), 1u) << cold.err;
      EXPECT_NE(found[0].find(" bytes stack frame, " + expected + ", "), std::string::npos) << found[0] << "\nnvcc: " << expected;
    }
  EXPECT_EQ(cold.err.find("ptxas info"), std::string::npos) << cold.err;
  EXPECT_TRUE(lines_with(cold.err, "warning").empty()) << "ptxas's report is no warning: " << cold.err;
  const RunResult warm = run_kiln({"build", "--json"}, other.path());
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  const nlohmann::json report = nlohmann::json::parse(warm.out);
  ASSERT_EQ(report["units"].size(), 2u) << warm.out;
  for (const nlohmann::json& unit : report["units"])
    for (const nlohmann::json& image : unit["images"]) EXPECT_EQ(image["cache"], "hit") << unit.dump();
  EXPECT_EQ(notes_of(warm.err), notes);
  EXPECT_EQ(warm.err.find("ptxas"), std::string::npos) << warm.err;
}

// ptxas's warnings in the same log as its report are kept, as the compiler's warnings: a register
// limit below sm_90's lowest is said by ptxas, for nvcc's unit (its output) and NVRTC's (nvJitLink's
// info log, which a -v build keeps: without -v it is not printed at all).
TEST_F(BuildResourceNotes, PtxasWarningsStayWhereItsReportGoes) {
  ScratchDir other;
  write_text(other.path() / "spill.cu", spilling_source("spills"));
  write_text(other.path() / "spill_host.cu", "#include <cuda_runtime.h>\n" + spilling_source("spills_from_host") +
                                                 "void launch(float* x, const int* i) { spills_from_host<<<1, 32>>>(x, i, 1); }\n");
  write_text(other.path() / "kiln.toml", "targets = [\"sm_90\"]\noptions = [\"-Xptxas=-v\"]\n"
                                         "[[source]]\npath = \"spill.cu\"\noptions = [\"-maxrregcount=16\"]\n"
                                         "[[source]]\npath = \"spill_host.cu\"\noptions = [\"-maxrregcount=17\"]\n");
  const RunResult r = run_kiln({"build"}, other.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* limit : {"16", "17"})
    EXPECT_EQ(count(r.err, std::string("ptxas warning : For profile sm_90 adjusting per thread register count of ") + limit +
                               " to lower bound of 24"), 1u) << limit << "\n" << r.err;
  EXPECT_EQ(r.err.find("ptxas info"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("ptxas         ."), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\n\n"), std::string::npos) << "no blank line where the report was: " << r.err;
  EXPECT_EQ(notes_of(r.err).size(), 2u) << r.err;
  EXPECT_NE(r.err.find("2 warnings (above)"), std::string::npos) << r.err;
}

// A unit built as image parts: each kernel once per target, though the parts compile the source
// each (tile.cu, tile.cu#2 and tile.cu#3: 12 kernels).
TEST_F(BuildResourceNotes, ImagePartsNoteEachKernelOncePerTarget) {
  ScratchDir other;
  const fs::path project = other.copy_project("parts");
  std::string manifest = read_text(project / "kiln.toml");
  manifest.replace(manifest.find("kernels_per_image"), 0, "options = [\"-Xptxas=-v\"]\n");
  write_text(project / "kiln.toml", manifest);
  const RunResult r = run_kiln({"build"}, project);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> kernels;
  for (const std::string& note : notes_of(r.err)) {
    EXPECT_EQ(note.rfind("kernels/tile.cu: note: sm_", 0), 0u) << note;
    EXPECT_TRUE(kernels.insert(note.substr(0, note.find("': "))).second) << "twice: " << note;   // file, target, kernel
  }
  EXPECT_EQ(kernels.size(), 24u) << r.err;
}

// Two variants of one source are two units: each note names its variant.
TEST_F(BuildResourceNotes, AVariantsNotesNameIt) {
  ScratchDir other;
  write_text(other.path() / "k.cu", "extern \"C\" __global__ void one(REAL* x) { x[0] = 1; }\n");
  write_text(other.path() / "kiln.toml",
             "targets = [\"sm_90\"]\noptions = [\"-Xptxas=-v\"]\n"
             "[[source]]\npath = \"k.cu\"\nvariant = \"f32\"\ndefines = [\"REAL=float\"]\n"
             "[[source]]\npath = \"k.cu\"\nvariant = \"f64\"\ndefines = [\"REAL=double\"]\n");
  const RunResult r = run_kiln({"build"}, other.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> notes = notes_of(r.err);
  ASSERT_EQ(notes.size(), 2u) << r.err;
  EXPECT_EQ(notes[0].rfind("k.cu: note: sm_90: variant 'f32': 'one': ", 0), 0u) << notes[0];
  EXPECT_EQ(notes[1].rfind("k.cu: note: sm_90: variant 'f64': 'one': ", 0), 0u) << notes[1];
}

TEST_F(BuildResourceNotes, RegistersAreTheOnesCuobjdumpReads) {
  ASSERT_EQ(s_cold->exit_code, 0) << s_cold->err;
  const fs::path tool = cuda_tool("cuobjdump", "KILN_TEST_CUOBJDUMP");
  if (tool.empty()) GTEST_SKIP() << "no cuobjdump beside " << KILN_NVCC << " or in .venv (set KILN_TEST_CUOBJDUMP)";
  std::map<std::string, int> noted;   // "sm_80 tiled" -> registers
  const std::regex registers(R"(: note: (sm_\d+): (?:link group 'g': )?'([a-z_]+)': (\d+) registers)");
  for (const std::string& note : notes_of(s_cold->err)) {
    std::smatch m;
    if (std::regex_search(note, m, registers)) noted[m[1].str() + " " + m[2].str()] = std::stoi(m[3]);
  }
  int compared = 0;
  for (const char* kernel : {"tiled", "plain", "from_host", "linked"})
    for (const char* target : {"sm_80", "sm_90"}) {
      const fs::path cubin = s_dir->path() / (std::string(kernel) + "." + target + ".cubin");
      const RunResult extracted = run_kiln({"extract", "notes.kiln", kernel, "--target", target, "-o", cubin.string()}, s_dir->path());
      ASSERT_EQ(extracted.exit_code, 0) << extracted.err;
      const fs::path listing = cubin.string() + ".txt";
      const std::string command = "'" + tool.string() + "' -res-usage '" + cubin.string() + "' > '" + listing.string() + "'";
      ASSERT_EQ(std::system(command.c_str()), 0) << command;
      const std::string text = read_text(listing);
      std::smatch m;
      ASSERT_TRUE(std::regex_search(text, m, std::regex("Function " + std::string(kernel) + R"(:\s+REG:(\d+))"))) << text;
      EXPECT_EQ(noted.at(std::string(target) + " " + kernel), std::stoi(m[1])) << kernel << " " << target;
      ++compared;
    }
  EXPECT_EQ(compared, 8);
}

}  // namespace
}  // namespace kiln::test
