// kiln build on tests/fixtures/projects/carried (issue 14, point 1): carry_sources stores each
// source's text, the headers its build read (a shared one once) and its options; a source nvcc
// compiles, or one that opts out, carries nothing (the first with a warning at its entry); the package
// stays deterministic, a header change changes what is carried, and verify checks it all.
#include "writer/package_contents.hpp"
#include "format/package_reader.hpp"
#include "kiln_runner.hpp"
#include "rtc/runtime_compiler.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class BuildCarried : public ::testing::Test {
protected:
  BuildCarried() : m_project(m_dir.copy_project("carried")) {}

  RunResult build(const std::string& output = "../carried.kiln") {
    return run_kiln({"build", "-o", output}, m_project, {"KILN_CACHE_DIR=" + (m_dir.path() / "cache").string()});
  }
  nlohmann::json inspect(const std::string& package = "../carried.kiln") {
    const RunResult r = run_kiln({"inspect", "--json", package}, m_project);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  static const nlohmann::json* unit(const nlohmann::json& report, const std::string& name) {
    for (const nlohmann::json& u : report["units"])
      if (u["source"] == name) return &u;
    return nullptr;
  }

  ScratchDir m_dir;
  fs::path m_project;
};

TEST_F(BuildCarried, SourcesHeadersAndOptionsAreCarriedEachTextOnce) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = inspect();
  EXPECT_EQ(report["format"], "2.0");
  const nlohmann::json* scale = unit(report, "kernels/scale.cu");
  ASSERT_TRUE(scale && scale->contains("carried")) << report.dump(2);
  const nlohmann::json& c = (*scale)["carried"];
  EXPECT_EQ(c["program"], "kernels/scale.cu");
  EXPECT_EQ(c["files"].size(), 2u);
  EXPECT_EQ(c["files"][1]["path"], "include/ops.cuh");
  EXPECT_EQ(c["include_dirs"], nlohmann::json({"include", "_cuda/include/cccl", "_cuda/include"}));
  EXPECT_EQ(c["options"], nlohmann::json({"-DFACTOR=3"}));
  EXPECT_EQ(c["kernel_templates"], nlohmann::json({"ops::scale"}));
  EXPECT_EQ(c["nvrtc_version"].get<std::string>().rfind("13.", 0), 0u);
  const nlohmann::json* shift = unit(report, "kernels/shift.cu");
  ASSERT_TRUE(shift && shift->contains("carried"));
  EXPECT_EQ((*shift)["carried"]["files"][1]["hash"], c["files"][1]["hash"]);
  // scale.cu, shift.cu and ops.cuh: the shared header once.
  EXPECT_EQ(report["carried_texts"]["count"], 3);
  EXPECT_FALSE(unit(report, "kernels/private.cu")->contains("carried")) << "carry_sources = false";

  const RunResult verify = run_kiln({"verify", "../carried.kiln"}, m_project);
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
}

TEST_F(BuildCarried, ASourceNvccCompilesWarnsAtItsEntryAndCarriesNothing) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("kiln.toml:18:1: warning: source 'kernels/host_side.cu' is not carried: nvcc compiles it"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("its kernels cannot be compiled at run time"), std::string::npos);
  EXPECT_FALSE(unit(inspect(), "kernels/host_side.cu")->contains("carried"));
  EXPECT_EQ(run_kiln({"build", "-o", "../strict.kiln", "--strict"}, m_project,
                     {"KILN_CACHE_DIR=" + (m_dir.path() / "cache").string()})
                .exit_code,
            0)
      << "a unit that cannot be carried is a warning about run-time compiles, not a scan finding";
}

TEST_F(BuildCarried, TwoBuildsAreByteIdenticalAndAHeaderChangeIsCarried) {
  ASSERT_EQ(build("../a.kiln").exit_code, 0);
  ASSERT_EQ(build("../b.kiln").exit_code, 0);
  EXPECT_EQ(read_bytes(m_dir.path() / "a.kiln"), read_bytes(m_dir.path() / "b.kiln"));
  write_text(m_project / "include" / "ops.cuh", read_text(m_project / "include" / "ops.cuh") + "// changed\n");
  ASSERT_EQ(build("../c.kiln").exit_code, 0);
  const nlohmann::json before = inspect("../a.kiln");
  const nlohmann::json after = inspect("../c.kiln");
  EXPECT_NE((*unit(before, "kernels/scale.cu"))["carried"]["files"][1]["hash"],
            (*unit(after, "kernels/scale.cu"))["carried"]["files"][1]["hash"]);
}

TEST_F(BuildCarried, TheInspectTextSaysWhatIsCarriedAndWhatCompilesAtRunTime) {
  ASSERT_EQ(build().exit_code, 0);
  const RunResult text = run_kiln({"inspect", "../carried.kiln", "--device", "9.0"}, m_project);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("carries its sources for run-time compiles: kernels/scale.cu and 1 headers"),
            std::string::npos) << text.out;
  EXPECT_NE(text.out.find("carried texts: 3 files"), std::string::npos) << text.out;
  // Built for sm_80 only: on 9.0 a carried kernel compiles at run time, the others cannot run.
  EXPECT_NE(text.out.find("compiled at run time from carried sources"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("cannot run: no image"), std::string::npos) << text.out;
  const nlohmann::json report = nlohmann::json::parse(
      run_kiln({"inspect", "--json", "../carried.kiln", "--device", "9.0"}, m_project).out);
  for (const nlohmann::json& k : report["kernels"]) {
    const bool carried = k["unit"] == "kernels/scale.cu" || k["unit"] == "kernels/shift.cu";
    EXPECT_EQ(k["loads"]["coverage"], carried ? "runtime-compile" : "none") << k.dump();
  }
}

TEST_F(BuildCarried, VerifyNamesEachUnitAndValueABuildNeverCarries) {
  ASSERT_EQ(build().exit_code, 0);
  format::PackageReader reader;
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "carried.kiln");
  ASSERT_TRUE(reader.open(bytes));
  Result<format::PackageContents> read = format::read_contents(reader);
  ASSERT_TRUE(read);
  format::PackageContents& contents = *read;
  for (format::PackageCarriedUnit& unit : contents.carried) {
    if (unit.unit_source != "kernels/scale.cu") continue;
    unit.options.insert(unit.options.end(), {"--create-pch=/tmp/victim", "--pre-include=/etc/hostname", "-O3"});
    unit.link_options.push_back("-time=/tmp/link-time");
  }
  const Result<std::vector<std::byte>> written = format::write_package(contents);
  ASSERT_TRUE(written.ok()) << written.error().message;
  write_bytes(m_dir.path() / "hostile.kiln", *written);
  const RunResult r = run_kiln({"verify", "../hostile.kiln"}, m_project);
  EXPECT_EQ(r.exit_code, 1);
  for (const std::string problem :
       {"kernels/scale.cu: carried option '--create-pch=/tmp/victim' is set by Kiln",
        "kernels/scale.cu: carried option '--pre-include=/etc/hostname' pre-includes a file outside the carried tree",
        "kernels/scale.cu: carried option '-O3' is not an option NVRTC 13.0 documents",
        "kernels/scale.cu: carried link option '-time=/tmp/link-time' is not one Kiln's option table gives "
        "nvJitLink"}) {
    EXPECT_NE(r.err.find(problem), std::string::npos) << problem << "\n" << r.err;
  }
  EXPECT_EQ(r.err.find("kernels/shift.cu:"), std::string::npos) << "the other unit is sound: " << r.err;
}

// The header a source pre-includes is carried and named by its path in the tree, so that the runtime
// compiles with the carried copy: the build's file is gone when it does.
TEST_F(BuildCarried, APreIncludedHeaderIsCarriedAndTheRuntimeCompilesWithIt) {
  if (!fs::exists("/usr/local/cuda/lib64/libnvrtc.so.13")) GTEST_SKIP() << "the run-time compile needs NVRTC";
  write_text(m_project / "include" / "offset.cuh", "#pragma once\n#define OFFSET 7\n");
  write_text(m_project / "kernels" / "offset.cu",
             "namespace ops {\ntemplate <typename T> __global__ void offset(T* x) { x[0] += OFFSET; }\n}\n");
  write_text(m_project / "kiln.toml",
             "targets = [\"sm_80\"]\ninclude_dirs = [\"include\"]\ncarry_sources = true\n"
             "[[source]]\npath = \"kernels/offset.cu\"\ninstantiate = [\"ops::offset<int>\"]\n"
             "options = [\"--pre-include=offset.cuh\"]\n"
             "[[source]]\npath = \"kernels/scale.cu\"\ninstantiate = [\"ops::scale<float>\"]\n"
             "defines = [\"FACTOR=3\"]\n"
             "options = [\"-include\", \"" + (m_project / "include" / "ops.cuh").string() + "\"]\n");
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = inspect();
  EXPECT_EQ((*unit(report, "kernels/offset.cu"))["carried"]["options"],
            nlohmann::json({"--pre-include=include/offset.cuh"}));
  // An absolute path in the manifest is carried as the file's path in the tree.
  EXPECT_EQ((*unit(report, "kernels/scale.cu"))["carried"]["options"],
            nlohmann::json({"-DFACTOR=3", "--pre-include=include/ops.cuh"}));
  const RunResult verify = run_kiln({"verify", "../carried.kiln"}, m_project);
  EXPECT_EQ(verify.exit_code, 0) << verify.err;

  fs::remove_all(m_project);
  set_variable("CUDA_PATH", "/usr/local/cuda");
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "carried.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes, "carried.kiln"));
  rtc::CompiledCache cache(store::CacheSettings{false, {}, 0});
  rtc::RuntimeCompiler compiler(rtc::CompilerSettings{}, cache);
  for (const char* request : {"ops::offset<double>", "ops::scale<double>"}) {
    const Result<rtc::Compiled> outcome = compiler.package_kernel(reader, "carried.kiln", request, "sm_90");
    EXPECT_TRUE(outcome.ok()) << error_text(outcome.error());
  }
}

// A -default-device source NVRTC compiles with Kiln's JIT-safe headers carries them: the runtime's
// NVRTC finds <limits> and <cmath> in the tree, last on its include path as at build time.
TEST_F(BuildCarried, ADefaultDeviceSourceCarriesKilnsJitSafeHeadersAndTheRuntimeCompilesWithThem) {
  if (!fs::exists("/usr/local/cuda/lib64/libnvrtc.so.13")) GTEST_SKIP() << "the run-time compile needs NVRTC";
  write_text(m_project / "kernels" / "biggest.cu",
             "#include <cmath>\n#include <limits>\n"
             "template <typename T> T largest() { return std::numeric_limits<T>::max(); }\n"
             "template <typename T> __global__ void biggest(T* x) { x[0] = std::fmin(x[0], largest<T>()); }\n");
  write_text(m_project / "kiln.toml",
             "targets = [\"sm_80\"]\ncarry_sources = true\n"
             "[[source]]\npath = \"kernels/biggest.cu\"\ninstantiate = [\"biggest<float>\"]\n"
             "options = [\"-default-device\"]\n");
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json carried = (*unit(inspect(), "kernels/biggest.cu"))["carried"];
  EXPECT_EQ(carried["include_dirs"].back(), "_kiln_jit_safe") << carried.dump();
  const RunResult verify = run_kiln({"verify", "../carried.kiln"}, m_project);
  EXPECT_EQ(verify.exit_code, 0) << verify.err;

  fs::remove_all(m_project);
  set_variable("CUDA_PATH", "/usr/local/cuda");
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "carried.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes, "carried.kiln"));
  rtc::CompiledCache cache(store::CacheSettings{false, {}, 0});
  rtc::RuntimeCompiler compiler(rtc::CompilerSettings{}, cache);
  const Result<rtc::Compiled> outcome = compiler.package_kernel(reader, "carried.kiln", "biggest<double>", "sm_90");
  EXPECT_TRUE(outcome.ok()) << error_text(outcome.error());
}

// kiln/compile.h promises the image a build makes: a run-time compile of a carried unit gets the
// build's options, its -frandom-seed (the source's path relative to the manifest, which names the
// unnamed namespace's function below: _ZN39_INTERNAL_<seed's hash>_9_hidden_cu_..._twiceEi) and its
// trimming, so that the image of the unit's one instantiation is the build's to the byte, though
// NVRTC compiles the source under another path (issue 32). It would differ for a unit of several
// instantiations (the build's image holds them all), one with device variables (the build keeps
// those it names, -variables-used, which a carried unit does not record), or code that uses
// __FILE__ (assert does): NVRTC's program name is the source's path in the private tree.
TEST_F(BuildCarried, ARunTimeCompileOfACarriedUnitMakesTheBuildsImageToTheByte) {
  if (!fs::exists("/usr/local/cuda/lib64/libnvrtc.so.13")) GTEST_SKIP() << "the run-time compile needs NVRTC";
  write_text(m_project / "kernels" / "hidden.cu",
             "#include \"ops.cuh\"\n"
             "namespace {\n__noinline__ __device__ int twice(int x) { return 2 * x + FACTOR; }\n}\n"
             "namespace ops {\ntemplate <typename T> __global__ void hidden(T* x, int n) {\n"
             "  const int i = global_index();\n  if (i < n) x[i] = static_cast<T>(twice(i)) * x[i];\n}\n}\n");
  write_text(m_project / "kiln.toml", "targets = [\"sm_90\"]\ninclude_dirs = [\"include\"]\ncarry_sources = true\n"
                                      "[[source]]\npath = \"kernels/hidden.cu\"\ninstantiate = [\"ops::hidden<float>\"]\n"
                                      "defines = [\"FACTOR=3\"]\n");
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::remove_all(m_project);
  const auto only_image = [](const std::vector<std::byte>& bytes) {
    format::PackageReader reader;
    EXPECT_TRUE(reader.open(bytes));
    Result<format::PackageContents> read = format::read_contents(reader);
    EXPECT_TRUE(read);
    const format::PackageContents contents = read ? std::move(*read) : format::PackageContents{};
    EXPECT_EQ(contents.units.size(), 1u);
    EXPECT_EQ(contents.units.at(0).images.size(), 1u);
    return contents.units.at(0).images.at(0);
  };
  const std::vector<std::byte> package = read_bytes(m_dir.path() / "carried.kiln");
  const format::PackageImage built = only_image(package);
  ASSERT_EQ(built.target, "sm_90");

  set_variable("CUDA_PATH", "/usr/local/cuda");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(package, "carried.kiln"));
  rtc::CompiledCache cache(store::CacheSettings{false, {}, 0});
  rtc::RuntimeCompiler compiler(rtc::CompilerSettings{}, cache);
  const Result<rtc::Compiled> outcome = compiler.package_kernel(reader, "carried.kiln", "ops::hidden<float>", "sm_90");
  ASSERT_TRUE(outcome.ok()) << error_text(outcome.error());
  const format::PackageImage compiled = only_image(*outcome->package);
  EXPECT_EQ(compiled.target, "sm_90");
  EXPECT_EQ(compiled.bytes.size(), built.bytes.size());
  EXPECT_TRUE(compiled.bytes == built.bytes) << "the run-time image differs from the build's";
}

TEST_F(BuildCarried, CarrySourcesMustBeABoolean) {
  write_text(m_project / "kiln.toml",
             "targets = [\"sm_80\"]\ncarry_sources = \"yes\"\n[[source]]\npath = \"kernels/private.cu\"\ncarry_sources = 1\n");
  const RunResult r = build();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("kiln.toml:2:17: error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kiln.toml:5:17: error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("carry_sources"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kiln::test
