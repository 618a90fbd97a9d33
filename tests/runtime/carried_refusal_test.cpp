// Packages that carry what a build never does (issue 30), compiled at run time with the toolkit's real
// NVRTC and nvJitLink and the fake driver (9.0): options that made NVRTC write or read files
// (--create-pch replaced a file, --time and -fdevice-time-trace created files, --pre-include put a
// host file's text into the compile and its error), link options (-time=, a ptxas options file),
// an include directory and a kernel name that reach outside the carried tree, and carried files
// that would write more than the package's size allows. Each is refused with CORRUPT and a message
// naming the value, before anything is written or compiled: the file it names is untouched, none
// appears, the temporary directory stays empty. A pre-include of a carried header compiles.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include "package_fixture.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

const char* k_refusal_source = R"(#include "common.cuh"
namespace ops {
template <typename T> __global__ void scale(T* x, T a, int n) {
  const int i = global_index();
  if (i < n) x[i] = x[i] * a * FACTOR;
}
}  // namespace ops
)";

std::string text_of_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class CarriedRefusalTest : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (const std::string why = use_toolkit_compilers(); !why.empty()) GTEST_SKIP() << why;
    m_dir = fs::temp_directory_path() / ("kiln-carried-refusal-" + std::to_string(kiln::test::process_id()) + "-" +
                                         std::to_string(std::random_device{}()));
    fs::create_directories(m_dir / "tmp");
    // Where a compile would lay its tree out: checked empty after each refusal.
    kiln::test::set_variable("TMPDIR", (m_dir / "tmp").string());
    std::ofstream(m_dir / "host-secret.h", std::ios::binary) << "host secret text\n";
  }
  void TearDown() override {
    kiln::test::unset_variable("TMPDIR");
    std::error_code ignored;
    if (!m_dir.empty()) fs::remove_all(m_dir, ignored);
    RuntimeTest::TearDown();
  }

  // A unit built for sm_80 only (so a 9.0 device compiles at run time) carrying `unit`'s values over
  // a sound source and header.
  static format::PackageCarriedUnit sound_unit() {
    format::PackageCarriedUnit carried;
    carried.unit_source = "kernels/scale.cu";
    carried.source = {"kernels/scale.cu", k_refusal_source};
    carried.headers = {{"include/common.cuh", "#pragma once\n__device__ inline int global_index() {\n"
                                              "  return blockIdx.x * blockDim.x + threadIdx.x;\n}\n"}};
    carried.include_dirs = {"include"};
    carried.options = {"-DFACTOR=3"};
    carried.kernel_templates = {"ops::scale"};
    carried.nvrtc_version = "13.0";
    return carried;
  }
  static Bytes package_of(const format::PackageCarriedUnit& carried) {
    PackageSpec spec;
    spec.units = {UnitSpec{"kernels/scale.cu", {"sm_80"}}};
    spec.kernels = {KernelSpec("ops::scale<float>", "kernels/scale.cu").with_lowered("_ZN3ops5scaleIfEEvPT_S1_i")};
    spec.carried = {carried};
    return build_package(spec);
  }

  // Asks for `request`, which only a run-time compile can give: refused as corrupt, naming `named`,
  // with nothing written. The message, for more checks.
  std::string refused(const Bytes& bytes, const std::string& named, const std::string& request = "ops::scale<double>") {
    kiln::Package package = open(bytes);
    const std::string message = error_of([&] { package.kernel(request); }, KILN_STATUS_CORRUPT);
    EXPECT_NE(message.find(named), std::string::npos) << message;
    EXPECT_NE(message.find("app.kiln: cannot compile"), std::string::npos) << message;
    EXPECT_EQ(message.find("host secret text"), std::string::npos) << "no host file reached the compile: " << message;
    EXPECT_TRUE(fs::is_empty(m_dir / "tmp")) << "nothing was written for the compile";
    return message;
  }

  fs::path m_dir;
};

TEST_F(CarriedRefusalTest, ACreatePchOptionIsRefusedAndTheFileItNamesIsUntouched) {
  const fs::path victim = m_dir / "victim.txt";
  std::ofstream(victim, std::ios::binary) << "precious";
  format::PackageCarriedUnit unit = sound_unit();
  unit.options.push_back("--create-pch=" + victim.string());
  refused(package_of(unit), "carried option '--create-pch=" + victim.string() + "' is set by Kiln");
  EXPECT_TRUE(text_of_file(victim) == "precious") << "replaced by " << fs::file_size(victim) << " bytes";
}

TEST_F(CarriedRefusalTest, TimingOptionsAreRefusedAndCreateNoFile) {
  for (const std::string option : {"--time=", "-fdevice-time-trace="}) {
    const fs::path target = m_dir / "timing";
    format::PackageCarriedUnit unit = sound_unit();
    unit.options.push_back(option + target.string());
    refused(package_of(unit), "carried option '" + option + target.string() + "' is set by Kiln when it is asked to "
                              "time the build");
    EXPECT_FALSE(fs::exists(target)) << option;
    EXPECT_FALSE(fs::exists(target.string() + ".json")) << option;
  }
}

TEST_F(CarriedRefusalTest, APreIncludeOfAHostFileIsRefusedBeforeItsTextIsRead) {
  for (const std::string& path : {(m_dir / "host-secret.h").string(), std::string("../../host-secret.h")}) {
    format::PackageCarriedUnit unit = sound_unit();
    unit.options.push_back("--pre-include=" + path);
    refused(package_of(unit),
            "carried option '--pre-include=" + path + "' pre-includes a file outside the carried tree");
  }
}

TEST_F(CarriedRefusalTest, LinkOptionsTheTableDoesNotGiveAreRefused) {
  const fs::path target = m_dir / "link-time";
  format::PackageCarriedUnit unit = sound_unit();
  unit.link_options = {"-lineinfo", "-time=" + target.string()};
  refused(package_of(unit), "carried link option '-time=" + target.string() + "' is not one Kiln's option table gives "
                            "nvJitLink");
  EXPECT_FALSE(fs::exists(target));
  // ptxas reads an options file, and nvJitLink's error quoted its first line.
  unit.link_options = {"-Xptxas=--options-file=" + (m_dir / "host-secret.h").string()};
  refused(package_of(unit), "passes '--options-file=" + (m_dir / "host-secret.h").string() + "' to ptxas");
}

TEST_F(CarriedRefusalTest, AnIncludeDirectoryOutsideTheTreeIsRefusedAsVerifyRefusesIt) {
  // The writer refuses such a directory, so a placeholder of the same length is written and replaced.
  const std::string outside = m_dir.string();
  const std::string placeholder(outside.size(), 'Q');
  format::PackageCarriedUnit unit = sound_unit();
  unit.source.text = std::string("#include \"host-secret.h\"\n") + k_refusal_source;
  unit.include_dirs = {"include", placeholder};
  Bytes bytes = package_of(unit);
  const std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::size_t at = text.find(placeholder);
  ASSERT_NE(at, std::string::npos);
  std::memcpy(bytes.data() + at, outside.data(), outside.size());
  format::testing::reseal(bytes);
  refused(bytes, "carried include directory '" + outside + "' is not '.' or a relative path");
}

TEST_F(CarriedRefusalTest, AKernelNameThatIsNotACppNameIsRefused) {
  // NVRTC compiles the name expression made from it: a line of its own is a preprocessor directive.
  format::PackageCarriedUnit unit = sound_unit();
  unit.kernel_templates = {"z\n#include \"" + (m_dir / "host-secret.h").string() + "\"\n::scale"};
  refused(package_of(unit), "carried kernel name 'z\n#include", "scale<double>");
}

TEST_F(CarriedRefusalTest, CarriedFilesBeyondTheBoundOnWhatACompileWritesAreRefused) {
  // One 1 MiB text that compresses to almost nothing, under 64 paths: 64 MiB to write from a package of
  // a few KiB, which may write 1024 times its size.
  format::PackageCarriedUnit unit = sound_unit();
  std::string padding;
  while (padding.size() < (std::size_t{1} << 20)) padding += "// padding\n";
  for (int i = 0; i < 64; ++i) unit.headers.push_back({"include/copy" + std::to_string(i) + ".cuh", padding});
  const Bytes bytes = package_of(unit);
  ASSERT_LT(bytes.size(), std::size_t{64} << 10);
  refused(bytes, "its carried files would write " + std::to_string(64 * padding.size() + unit.source.text.size() +
                                                                    unit.headers[0].text.size()) +
                     " bytes, more than a run-time compile from a " + std::to_string(bytes.size()) +
                     "-byte package may write");
}

TEST_F(CarriedRefusalTest, APreIncludeOfACarriedHeaderCompilesWithIt) {
  // FACTOR comes from a header the build pre-included, found under an include directory as NVRTC found it.
  format::PackageCarriedUnit unit = sound_unit();
  unit.headers.push_back({"include/factor.cuh", "#pragma once\n#define FACTOR 5\n"});
  unit.options = {"--pre-include=factor.cuh"};
  // A file of that name in this process's working directory, where NVRTC looks for a relative one
  // first, is not read: the option NVRTC gets names the carried file.
  fs::create_directories(m_dir / "cwd");
  std::ofstream(m_dir / "cwd" / "factor.cuh") << "#error read from the working directory\n";
  const fs::path previous = fs::current_path();
  fs::current_path(m_dir / "cwd");
  kiln::Package package = open(package_of(unit));
  std::string lowered;
  try {
    lowered = package.kernel("ops::scale<double>").lowered_name();
  } catch (const kiln::Error& e) {
    ADD_FAILURE() << e.what();
  }
  fs::current_path(previous);
  EXPECT_EQ(lowered, "_ZN3ops5scaleIdEEvPT_S1_i");
  EXPECT_TRUE(fs::is_empty(m_dir / "tmp")) << "the compile's tree is removed";
}

}  // namespace
}  // namespace kiln::testing
