// kiln build with the scanner, on tests/fixtures/projects/scan (sources and targets only): the package
// holds exactly what nvcc would emit for the same sources plus what host code asks for, the
// runtime finds requests as written, scans are cached, parse errors stop the build, and the source
// with host code goes through nvcc and verifies.
#include "format/package_reader.hpp"
#include "image/cubin_reader.hpp"
#include "kiln_runner.hpp"
#include "package/kernel_names.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using Names = std::set<std::string>;


// The kernels `nvcc -cubin -arch=sm_80` emits for `source`, by canonical name (the demangled name:
// nvcc's and NVRTC's symbols for unnamed namespaces differ, their demangled names do not).
Names nvcc_kernels(const fs::path& project, const std::string& source) {
  const fs::path cubin = project / (source + ".nvcc.cubin");
  const std::string command = "cd '" + project.string() + "' && '" KILN_NVCC "' -cubin -arch=sm_80 -o '" +
                              cubin.string() + "' '" + source + "' 2>/dev/null";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("nvcc failed: " + command);
  const std::vector<std::byte> bytes = read_bytes(cubin);
  const Result<image::CubinInfo> info = image::read_cubin(bytes, source);
  if (!info) throw std::runtime_error(info.error().message);
  Names names;
  for (const image::CubinSymbol& s : info->symbols)
    if (s.is_kernel) names.insert(package::canonical_kernel_name(s.name));
  return names;
}

// The package's kernels of one unit, by canonical name of their lowered names.
Names package_kernels(const format::PackageReader& reader, const std::string& source) {
  Names names;
  for (std::uint32_t i = 0; i < reader.kernel_count(); ++i) {
    const format::KernelView k = reader.kernel(i);
    if (reader.unit(k.unit).source == source) names.insert(package::canonical_kernel_name(k.lowered_name));
  }
  return names;
}

class BuildScan : public ::testing::Test {
protected:
  BuildScan() : m_project(m_dir.copy_project("scan")) {}

  RunResult build(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"build", "-o", "../scan.kiln", "-v"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, m_project);
  }

  ScratchDir m_dir;
  fs::path m_project;
};

TEST_F(BuildScan, ThePackageHoldsWhatNvccEmitsPlusWhatHostCodeRequests) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "scan.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));

  // device.cu: nvcc emits no block_sum (nothing in the file instantiates it); src/app.cpp asks for it.
  Names device = nvcc_kernels(m_project, "kernels/device.cu");
  EXPECT_EQ(device, (Names{"scale<float>", "scale<int>", "doubled", "(anonymous namespace)::internal"}));
  device.insert("block_sum<float, 256u>");
  EXPECT_EQ(package_kernels(reader, "kernels/device.cu"), device);

  // host_side.cu: what its launch and address-of instantiate, plus the requested fill<double>.
  Names host = nvcc_kernels(m_project, "kernels/host_side.cu");
  EXPECT_EQ(host, (Names{"ops::fill<float>", "ops::touch", "step<2>"}));
  host.insert("ops::fill<double>");
  EXPECT_EQ(package_kernels(reader, "kernels/host_side.cu"), host);
}

TEST_F(BuildScan, ATemplateWithoutInstantiationIsAWarningWithItsLocation) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("kernels/device.cu:25:17: warning: kernel template 'never_instantiated' is never instantiated"),
            std::string::npos)
      << r.err;
}

TEST_F(BuildScan, TheRuntimeFindsARequestAsTheHostWroteIt) {
  ASSERT_EQ(build().exit_code, 0);
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "scan.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  const auto written = reader.find_kernel("block_sum<float, 256u>");
  ASSERT_TRUE(written);
  EXPECT_EQ(reader.find_kernel("block_sum<float, 256>"), written) << "the scanner's canonical spelling";
  EXPECT_EQ(reader.find_kernel("_Z9block_sumIfLj256EEvPKT_PS0_"), written);
  EXPECT_TRUE(reader.find_kernel("ops::fill<double>"));
  // Variables: those the kernel sources declare, also the __managed__ one in the nvcc unit.
  for (const char* name : {"coefficients", "counter", "host_side_table", "launches"})
    EXPECT_TRUE(reader.find_variable(name)) << name;
  EXPECT_EQ(reader.variable(*reader.find_variable("launches")).kind, format::VariableKind::managed);
}

TEST_F(BuildScan, AnUnchangedTreeIsNotRescannedAndAHeaderChangeIs) {
  const RunResult cold = build();
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_NE(cold.err.find("scan: 0 cached, 3 scanned"), std::string::npos) << cold.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "scan.kiln.scan-cache")) << "in the cache directory, not beside the package";
  EXPECT_TRUE(fs::is_directory(default_cache_dir(m_project))) << "KILN_CACHE_DIR";
  const std::vector<std::byte> first = read_bytes(m_dir.path() / "scan.kiln");
  const RunResult warm = build();
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  EXPECT_NE(warm.err.find("scan: 3 cached, 0 scanned, 0 request resolutions parsed"), std::string::npos) << warm.err;
  EXPECT_EQ(read_bytes(m_dir.path() / "scan.kiln"), first) << "a cached scan builds the same package";

  // common.cuh is read by both kernel sources, not by the host source.
  write_text(m_project / "kernels/common.cuh", "#pragma once\n__device__ inline float twice(float x) { return 2 * x; }\n");
  const RunResult changed = build();
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_NE(changed.err.find("scan: 1 cached, 2 scanned"), std::string::npos) << changed.err;
}

TEST_F(BuildScan, AHeaderOfAHostSourceIsAnInputAndARequestAddedThereIsBuilt) {
  // The host source includes a header without requests; the depfile names it, so a build system
  // runs kiln again when a request is added there, and that build holds the new kernel.
  const std::string app = read_text(m_project / "src/app.cpp");
  write_text(m_project / "src/app.cpp", "#include \"requests.hpp\"\n" + app);
  write_text(m_project / "src/requests.hpp", "#pragma once\n#include <kiln/kiln.hpp>\n");
  const RunResult first = build();
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const std::string depfile = read_text(m_dir.path() / "scan.kiln.d");
  EXPECT_NE(depfile.find((fs::absolute(m_project) / "src/requests.hpp").lexically_normal().generic_string()),
            std::string::npos)
      << depfile;
  EXPECT_EQ(depfile.find("kiln.hpp"), std::string::npos) << "Kiln's own headers are not the project's\n" << depfile;

  write_text(m_project / "src/requests.hpp",
             "#pragma once\n#include <kiln/kiln.hpp>\n"
             "inline kiln::Kernel more(const kiln::Package& p) { return p.kernel(\"block_sum<double, 128u>\"); }\n");
  const RunResult second = build();
  ASSERT_EQ(second.exit_code, 0) << second.err;
  format::PackageReader reader;
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "scan.kiln");
  ASSERT_TRUE(reader.open(bytes));
  EXPECT_TRUE(reader.find_kernel("block_sum<double, 128u>")) << second.err;
}

TEST_F(BuildScan, CachedAndFreshScansBuildTheSameBytes) {
  ASSERT_EQ(build().exit_code, 0);
  const std::vector<std::byte> fresh = read_bytes(m_dir.path() / "scan.kiln");
  ASSERT_EQ(build({"--scan-cache", (m_dir.path() / "other-cache").string()}).exit_code, 0);
  ASSERT_EQ(build().exit_code, 0);
  EXPECT_EQ(read_bytes(m_dir.path() / "scan.kiln"), fresh);
  EXPECT_TRUE(fs::is_directory(m_dir.path() / "other-cache"));
}

TEST_F(BuildScan, ACopyOfTheTreeElsewhereBuildsTheSameBytesThroughNvccToo) {
  const fs::path other = m_dir.copy_project("scan", "deeper/path/elsewhere");
  ASSERT_EQ(build().exit_code, 0);
  ASSERT_EQ(run_kiln({"build", "-o", (m_dir.path() / "other.kiln").string()}, other).exit_code, 0);
  EXPECT_EQ(read_bytes(m_dir.path() / "scan.kiln"), read_bytes(m_dir.path() / "other.kiln"))
      << "nvcc's internal names must not depend on where the tree is";
}

TEST_F(BuildScan, TheSourceWithHostCodeCompilesWithNvccAndVerifies) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sm_80 kernels/host_side.cu"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  nvcc: "), std::string::npos) << r.err;
  const RunResult verify = run_kiln({"verify", "scan.kiln"}, m_dir.path());
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  const std::string depfile = read_text(m_dir.path() / "scan.kiln.d");
  EXPECT_NE(depfile.find((fs::canonical(m_project) / "src/app.cpp").string()), std::string::npos)
      << "host sources are inputs:\n" << depfile;
}

TEST_F(BuildScan, HostSourcesCanComeFromTheCommandLine) {
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"kernels/device.cu\"\n");
  const RunResult without = build();
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_NE(without.err.find("kernel template 'block_sum' is never instantiated"), std::string::npos) << without.err;
  const RunResult with = build({"--host-source", "src/app.cpp"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(with.err.find("'block_sum' is never instantiated"), std::string::npos) << with.err;
  // fill<double> is in host_side.cu, which this manifest does not build.
  EXPECT_NE(with.err.find("src/app.cpp:6:"), std::string::npos) << with.err;
  EXPECT_NE(with.err.find("warning: the runtime request for kernel 'ops::fill<double>' names no kernel"), std::string::npos)
      << with.err;
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "scan.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  EXPECT_TRUE(reader.find_kernel("block_sum<float, 256u>"));
}

// A C++20 host file (its build's standard, not the kernels') parses only at --host-std c++20
// (kiln_add_cache's SCAN_TARGETS passes the target's); without it, its request is lost with a warning.
TEST_F(BuildScan, HostSourcesParseAtTheStandardGiven) {
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"kernels/device.cu\"\n");
  write_text(m_project / "src/modern.cpp",
             "#include <kiln/kiln.hpp>\n#include <span>\ntemplate <class T> concept wide = sizeof(T) == 8;\n"
             "kiln::Kernel get(const kiln::Package& p, std::span<const float>) {\n"
             "  return p.kernel(\"block_sum<float, 256u>\");\n}\n");
  const RunResult at_17 = build({"--host-source", "src/modern.cpp"});
  ASSERT_EQ(at_17.exit_code, 0) << at_17.err;
  EXPECT_NE(at_17.err.find("modern.cpp: warning: the scan cannot read this host source"), std::string::npos) << at_17.err;
  const RunResult at_20 = build({"--host-source", "src/modern.cpp", "--host-std", "c++20"});
  ASSERT_EQ(at_20.exit_code, 0) << at_20.err;
  EXPECT_EQ(at_20.err.find("cannot read"), std::string::npos) << at_20.err;
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "scan.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  EXPECT_TRUE(reader.find_kernel("block_sum<float, 256u>"));
  const RunResult unknown = build({"--host-source", "src/modern.cpp", "--host-std", "c++21"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  EXPECT_NE(unknown.err.find("--host-std"), std::string::npos) << unknown.err;
}

TEST_F(BuildScan, ManifestInstantiationsAddToThoseFound) {
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\"]\nhost_sources = [\"src/app.cpp\"]\n"
                                      "[[source]]\npath = \"kernels/device.cu\"\ninstantiate = [\"block_sum<double, 128>\"]\n"
                                      "[[source]]\npath = \"kernels/host_side.cu\"\ninstantiate = [\"step<7>\"]\n");
  ASSERT_EQ(build().exit_code, 0);
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "scan.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  for (const char* name : {"block_sum<double, 128>", "block_sum<float, 256u>", "scale<float>", "step<7>", "step<2>"})
    EXPECT_TRUE(reader.find_kernel(name)) << name;
}

TEST_F(BuildScan, AnInstantiationNvccCannotBuildIsReportedAtItsManifestEntry) {
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"kernels/host_side.cu\"\n"
                                      "instantiate = [\"step<NoSuchThing>\"]\n");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, k_failed);
  // The `instantiate` entry is at line 4, the name at column 22 (nvcc's caret, docs/cli.md "Diagnostics").
  EXPECT_NE(r.err.find("kiln.toml:4:22: error: identifier \"NoSuchThing\" is undefined"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("in the compilation of \"kernels/host_side.cu\""), std::string::npos)
      << "nvcc's input was a copy; messages name the source\n" << r.err;
}

TEST_F(BuildScan, ManagedVariablesOfADeviceOnlySourceAreKeptBySymbol) {
  // NVRTC refuses __managed__ variables as name expressions; nvJitLink keeps them by symbol.
  write_text(m_project / "kernels/managed.cu", "namespace flags {\n__managed__ int ready;\n}\n__managed__ float total;\n"
                                               "extern \"C\" __global__ void touch(int* x) { x[0] = 1; }\n");
  write_text(m_project / "kiln.toml", "targets = [\"sm_80\", \"compute_80\"]\n[[source]]\npath = \"kernels/managed.cu\"\n");
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::byte> bytes = read_bytes(m_dir.path() / "scan.kiln");
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(bytes));
  for (const char* name : {"flags::ready", "total"}) {
    const auto v = reader.find_variable(name);
    ASSERT_TRUE(v) << name;
    EXPECT_EQ(reader.variable(*v).kind, format::VariableKind::managed) << name;
  }
  EXPECT_EQ(reader.variable(*reader.find_variable("flags::ready")).lowered_name, "_ZN5flags5readyE");
  EXPECT_EQ(run_kiln({"verify", "scan.kiln"}, m_dir.path()).exit_code, 0);
}

TEST_F(BuildScan, ASourceTheCompilerRejectsFailsWithTheCompilersErrorAlone) {
  write_text(m_project / "kernels/device.cu", "__global__ void k(int* x) {\n  x[0] = 1\n}\n");
  const RunResult r = run_kiln({"build", "project/kiln.toml", "-o", "scan.kiln"}, m_dir.path());
  EXPECT_EQ(r.exit_code, k_failed);
  // The scan failed on the same error: its warning would say it twice (docs/cli.md, "Diagnostics").
  EXPECT_EQ(r.err.find("the scan cannot read this source"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("expected ';' after expression"), std::string::npos) << r.err;
  // The compiler of record has the last word, at the place it sees (its caret's column).
  EXPECT_NE(r.err.find("project/kernels/device.cu:3:1: error: expected a \";\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no package written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "scan.kiln"));
  EXPECT_FALSE(fs::exists(m_dir.path() / "scan.kiln.d"));
}

}  // namespace
}  // namespace kiln::test
