// kiln extract: the image that holds a kernel, written where -o says (atomically), chosen by
// --target, --device or as the only one; each way it can fail names the kernel and the target.
#include "format/package_reader.hpp"
#include "image/cubin_reader.hpp"
#include "cuda_tools.hpp"
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class Extract : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = new ScratchDir;
    write_text(s_dir->path() / "project/kiln.toml",
               "name = \"ex\"\ntargets = [\"sm_80\", \"sm_90\", \"compute_80\"]\n"
               "[[source]]\npath = \"k.cu\"\n[[source]]\npath = \"only.cu\"\n");
    write_text(s_dir->path() / "project/k.cu",
               "extern \"C\" __global__ void fill(float* out, float v) { out[threadIdx.x] = v; }\n"
               "template <typename T> __global__ void scale(T* d, T f) { d[threadIdx.x] *= f; }\n"
               "template __global__ void scale<float>(float*, float);\n");
    // Only the sm_90 cubin holds `lone`: the other targets compile with a lower __CUDA_ARCH__.
    write_text(s_dir->path() / "project/only.cu",
               "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900\n"
               "extern \"C\" __global__ void lone(int* out) { out[0] = 1; }\n#endif\n");
    const RunResult r = run_kiln({"build", "-o", "../ex.kiln"}, s_dir->path() / "project");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  void SetUp() override {
    m_out = s_dir->path() / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(m_out);
  }
  RunResult extract(std::vector<std::string> args) const {
    args.insert(args.begin(), {"extract", (s_dir->path() / "ex.kiln").string()});
    return run_kiln(args, m_out);
  }
  // The package's image of `unit` for `target`, as stored (decoded).
  static std::vector<std::byte> image(const std::string& unit, const std::string& target) {
    const std::vector<std::byte> bytes = read_bytes(s_dir->path() / "ex.kiln");
    format::PackageReader reader;
    if (!reader.open(bytes)) return {};
    for (std::uint32_t i = 0; i < reader.image_count(); ++i)
      if (reader.target(reader.image(i).target).name == target && reader.unit(reader.image(i).unit).source == unit) {
        Result<std::vector<std::byte>> read = reader.read_image(i);
        return read ? std::move(*read) : std::vector<std::byte>{};
      }
    return {};
  }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(m_out)) out.push_back(entry.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  static ScratchDir* s_dir;
  fs::path m_out;
};

ScratchDir* Extract::s_dir = nullptr;

TEST_F(Extract, TargetWritesThatCubin) {
  const RunResult r = extract({"scale<float>", "--target", "sm_80", "-o", "scale.cubin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "scale.cubin: sm_80 cubin of k.cu, " + std::to_string(image("k.cu", "sm_80").size()) + " bytes\n");
  const std::vector<std::byte> written = read_bytes(m_out / "scale.cubin");
  EXPECT_EQ(written, image("k.cu", "sm_80"));
  const Result<image::CubinInfo> info = image::read_cubin(written, "scale.cubin");
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->sm, 80);
  EXPECT_EQ(files(), std::vector<std::string>{"scale.cubin"});   // no temporary file left behind
}

TEST_F(Extract, TheToolkitReadsTheCubin) {
  ASSERT_EQ(extract({"fill", "--target", "sm_90", "-o", "fill.cubin"}).exit_code, 0);
  const fs::path cuobjdump = cuda_tool("cuobjdump", "KILN_TEST_CUOBJDUMP");
  const fs::path nvdisasm = cuda_tool("nvdisasm", "KILN_TEST_NVDISASM");
  if (cuobjdump.empty() && nvdisasm.empty()) GTEST_SKIP() << "neither cuobjdump nor nvdisasm beside " << KILN_NVCC;
  for (const fs::path& tool : {cuobjdump, nvdisasm}) {
    if (tool.empty()) continue;
    const std::string listing = (m_out / (tool.filename().string() + ".txt")).string();
    const std::string command = "'" + tool.string() + "' " + (tool == cuobjdump ? "-sass " : "") + "'" +
                                (m_out / "fill.cubin").string() + "' > '" + listing + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    EXPECT_NE(read_text(listing).find("fill"), std::string::npos) << read_text(listing);
  }
}

TEST_F(Extract, DeviceWritesTheImageItLoadsUnderTheDefaultName) {
  RunResult r = extract({"fill", "--device", "9.0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bytes(m_out / "ex.sm_90.cubin"), image("k.cu", "sm_90"));
  r = extract({"fill", "--device", "sm_86"});   // the sm_80 cubin runs there
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bytes(m_out / "ex.sm_80.cubin"), image("k.cu", "sm_80"));
  r = extract({"fill", "--device", "12.0"});    // only the PTX does
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ptx = read_text(m_out / "ex.compute_80.ptx");
  EXPECT_NE(ptx.find(".entry fill"), std::string::npos) << ptx;
  EXPECT_NE(ptx.back(), '\0');   // text, without the NUL the package keeps for the driver
}

TEST_F(Extract, AKernelInOneImageNeedsNoChoice) {
  const RunResult r = extract({"lone"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bytes(m_out / "ex.sm_90.cubin"), image("only.cu", "sm_90"));
}

TEST_F(Extract, ErrorsNameTheKernelAndTheTarget) {
  RunResult r = extract({"fill"});
  EXPECT_EQ(r.exit_code, k_usage);
  EXPECT_NE(r.err.find("kernel fill is in 3 images: choose one with --target (sm_80 sm_90 compute_80) or --device"),
            std::string::npos) << r.err;
  r = extract({"fil", "--target", "sm_80"});
  EXPECT_EQ(r.exit_code, k_usage);
  EXPECT_NE(r.err.find("no kernel 'fil'"), std::string::npos) << r.err;
  r = extract({"lone", "--target", "sm_80"});
  EXPECT_EQ(r.exit_code, k_usage);
  EXPECT_NE(r.err.find("kernel lone: no sm_80 image holds it (its targets: sm_90)"), std::string::npos) << r.err;
  r = extract({"lone", "--device", "8.0"});
  EXPECT_EQ(r.exit_code, k_usage);
  EXPECT_NE(r.err.find("kernel lone: no image loads on 8.0: "), std::string::npos) << r.err;
  r = extract({"fill", "--target", "sm_80", "--device", "8.0"});
  EXPECT_EQ(r.exit_code, k_usage);
  r = run_kiln({"extract", "absent.kiln", "fill"}, m_out);
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("absent.kiln"), std::string::npos) << r.err;
  EXPECT_EQ(files(), std::vector<std::string>{});
}

TEST_F(Extract, RefusesToReplaceADirectoryOrThePackage) {
  fs::create_directories(m_out / "dir");
  RunResult r = extract({"fill", "--target", "sm_80", "-o", "dir"});
  EXPECT_EQ(r.exit_code, k_usage);
  EXPECT_NE(r.err.find("dir: exists and is not a regular file"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_directory(m_out / "dir"));
  const std::vector<std::byte> package = read_bytes(s_dir->path() / "ex.kiln");
  r = extract({"fill", "--target", "sm_80", "-o", (s_dir->path() / "ex.kiln").string()});
  EXPECT_EQ(r.exit_code, k_usage);
  EXPECT_NE(r.err.find("is the package itself"), std::string::npos) << r.err;
  EXPECT_EQ(read_bytes(s_dir->path() / "ex.kiln"), package);
  // A regular file is replaced.
  write_text(m_out / "old.cubin", "old");
  r = extract({"fill", "--target", "sm_80", "-o", "old.cubin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bytes(m_out / "old.cubin"), image("k.cu", "sm_80"));
  EXPECT_EQ(files(), (std::vector<std::string>{"dir", "old.cubin"}));
}

}  // namespace
}  // namespace kiln::test
