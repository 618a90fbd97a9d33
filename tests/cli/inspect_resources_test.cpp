// kiln inspect: registers, stack, shared, local and constant memory and the thread limit of each
// kernel in each cubin, read from the cubin's own records and checked against cuobjdump's reading.
#include "format/package_reader.hpp"
#include "image/elf_file.hpp"
#include "cuda_tools.hpp"
#include "kiln_runner.hpp"
#include "writer/package_writer.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* k_source = R"(
extern "C" __global__ void __launch_bounds__(128) tiled(float* out, int n) {
  __shared__ float tile[256];
  __shared__ double more[8];
  tile[threadIdx.x] = out[threadIdx.x];
  more[threadIdx.x & 7] = tile[threadIdx.x ^ 1];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + n) & 255] + static_cast<float>(more[n & 7]);
}
extern "C" __global__ void on_stack(float* out, int n) {
  volatile float buffer[300];
  for (int i = 0; i < 300; ++i) buffer[i] = out[i * n];
  out[threadIdx.x] = buffer[(threadIdx.x * n) % 300];
}
extern "C" __global__ void plain(float* out) { out[threadIdx.x] = 1.0f; }
)";

class InspectResources : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = new ScratchDir;
    write_text(s_dir->path() / "project/kiln.toml",
               "name = \"res\"\ntargets = [\"sm_80\", \"sm_90\", \"compute_80\"]\n[[source]]\npath = \"k.cu\"\n");
    write_text(s_dir->path() / "project/k.cu", k_source);
    const RunResult r = run_kiln({"build", "-o", "../res.kiln"}, s_dir->path() / "project");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static RunResult inspect(const std::string& package, std::vector<std::string> extra = {}) {
    extra.insert(extra.begin(), {"inspect", package});
    return run_kiln(extra, s_dir->path());
  }
  // kernel -> target -> its resources, from `kiln inspect --json`.
  static std::map<std::string, std::map<std::string, nlohmann::json>> resources() {
    const RunResult r = inspect("res.kiln", {"--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::map<std::string, nlohmann::json>> out;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    for (const nlohmann::json& k : report["kernels"])
      for (const nlohmann::json& entry : k["resources"]) out[k["name"]][entry["target"]] = entry;
    return out;
  }
  // The package's image for `target` (of its only unit).
  static std::vector<std::byte> image(const std::string& target) {
    const std::vector<std::byte> bytes = read_bytes(s_dir->path() / "res.kiln");
    format::PackageReader reader;
    if (!reader.open(bytes)) return {};
    for (std::uint32_t i = 0; i < reader.image_count(); ++i)
      if (reader.target(reader.image(i).target).name == target) {
        Result<std::vector<std::byte>> read = reader.read_image(i);
        return read ? std::move(*read) : std::vector<std::byte>{};
      }
    return {};
  }
  static ScratchDir* s_dir;
};

ScratchDir* InspectResources::s_dir = nullptr;

TEST_F(InspectResources, JsonHasEachKernelPerCubin) {
  const auto all = resources();
  ASSERT_EQ(all.size(), 3u);
  for (const auto& [kernel, by_target] : all) {
    EXPECT_EQ(by_target.size(), 2u) << kernel << ": one entry per cubin, none for PTX";
    for (const auto& [target, r] : by_target) {
      EXPECT_GT(r["registers"].get<int>(), 0) << kernel << " " << target;
      EXPECT_GT(r["constant"].get<int>(), 0) << kernel << " " << target;   // the parameters live there
      EXPECT_EQ(r["local"], 0) << kernel << " " << target;
    }
  }
  const nlohmann::json& tiled = all.at("tiled").at("sm_80");
  EXPECT_EQ(tiled["shared"], 1024 + 64);   // float[256] and double[8]
  EXPECT_EQ(tiled["max_threads"], nlohmann::json::array({128, 1, 1}));
  EXPECT_EQ(tiled["required_threads"], nullptr);
  EXPECT_EQ(tiled["stack"], 0);
  EXPECT_GE(all.at("tiled").at("sm_90")["shared"].get<int>(), 1024 + 64);
  for (const char* target : {"sm_80", "sm_90"}) {
    const nlohmann::json& stack = all.at("on_stack").at(target);
    EXPECT_GE(stack["stack"].get<int>(), 1200) << target;   // the volatile float[300] is in local memory
    EXPECT_GE(stack["frame"].get<int>(), 1200) << target;
    EXPECT_EQ(stack["shared"], 0);
    EXPECT_EQ(stack["max_threads"], nullptr);
  }
}

TEST_F(InspectResources, TextHasATablePerTarget) {
  const RunResult r = inspect("res.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t at = r.out.find("\nresources (bytes; registers, stack and local per thread, shared per block; "
                                    "spills are not recorded in a cubin)\n  sm_80\n    kernel");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string section = r.out.substr(at);
  EXPECT_NE(section.find("  sm_90\n    kernel"), std::string::npos) << section;
  EXPECT_EQ(section.find("compute_80"), std::string::npos) << section;
  EXPECT_TRUE(std::regex_search(section, std::regex("\n    tiled +[0-9]+ +0 +1088 +0 +[0-9]+ +max 128\n"))) << section;
  EXPECT_TRUE(std::regex_search(section, std::regex("\n    plain +[0-9]+ +0 +0 +0 +[0-9]+ +-\n"))) << section;
}

TEST_F(InspectResources, AgreesWithCuobjdump) {
  // cuobjdump, where there is one (cuda_tools.hpp), must read the same numbers.
  const fs::path tool = cuda_tool("cuobjdump", "KILN_TEST_CUOBJDUMP");
  if (tool.empty()) GTEST_SKIP() << "no cuobjdump beside " << KILN_NVCC << " or in .venv (set KILN_TEST_CUOBJDUMP)";
  const auto all = resources();
  for (const char* target : {"sm_80", "sm_90"}) {
    const fs::path cubin = s_dir->path() / (std::string(target) + ".cubin");
    write_bytes(cubin, image(target));
    const fs::path listing = s_dir->path() / (std::string(target) + ".txt");
    const std::string command = "'" + tool.string() + "' -res-usage '" + cubin.string() + "' > '" + listing.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    // " Function tiled:\n  REG:14 STACK:0 SHARED:1088 LOCAL:0 CONSTANT[0]:364 ..."
    const std::string text = read_text(listing);
    const std::regex line(R"(Function ([A-Za-z_0-9]+):\s+REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+) CONSTANT\[0\]:(\d+))");
    int compared = 0;
    for (auto m = std::sregex_iterator(text.begin(), text.end(), line); m != std::sregex_iterator(); ++m, ++compared) {
      const nlohmann::json& r = all.at((*m)[1]).at(target);
      EXPECT_EQ(r["registers"], std::stoi((*m)[2])) << (*m)[0];
      EXPECT_EQ(r["stack"], std::stoi((*m)[3])) << (*m)[0];
      EXPECT_EQ(r["shared"], std::stoi((*m)[4])) << (*m)[0];
      EXPECT_EQ(r["local"], std::stoi((*m)[5])) << (*m)[0];
      EXPECT_EQ(r["constant"], std::stoi((*m)[6])) << (*m)[0];
    }
    EXPECT_EQ(compared, 3) << text;
  }
}

// A cubin whose REGCOUNT record names a symbol that does not exist: inspect still shows the package,
// and says which image's records it could not read and why, instead of a number it cannot trust.
TEST_F(InspectResources, AMalformedRecordIsReportedNotBelieved) {
  std::vector<std::byte> cubin = image("sm_80");
  const Result<image::ElfFile> elf = image::ElfFile::parse(cubin);
  ASSERT_TRUE(elf) << elf.error().message;
  const image::ElfSection* info = elf->find_section(".nv.info");
  ASSERT_NE(info, nullptr);
  const std::size_t at = static_cast<std::size_t>(info->bytes.data() - cubin.data());
  ASSERT_EQ(cubin[at + 1], std::byte{0x2f}) << "the first record is a REGCOUNT";
  for (std::size_t i = 0; i < 4; ++i) cubin[at + 4 + i] = std::byte{0x7f};   // symbol 0x7f7f7f7f

  format::PackageContents contents;
  contents.targets = {"sm_80"};
  contents.units.push_back({"k.cu", {{"sm_80", cubin, 0}}});
  contents.kernels.push_back({"tiled", "tiled", "k.cu", format::k_kernel_extern_c, {}, {}});
  const Result<std::vector<std::byte>> written = format::write_package(contents);
  ASSERT_TRUE(written.ok()) << written.error().message;
  write_bytes(s_dir->path() / "bad.kiln", *written);

  RunResult r = inspect("bad.kiln", {"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["units"][0]["images"][0]["resources_problem"],
            "k.cu [sm_80]: .nv.info: REGCOUNT record names symbol 2139062143, which does not exist");
  EXPECT_EQ(report["kernels"][0]["resources"], nlohmann::json::array());
  r = inspect("bad.kiln");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  sm_80: cannot read its resources: k.cu [sm_80]: .nv.info: REGCOUNT record names symbol"),
            std::string::npos) << r.out;
}

}  // namespace
}  // namespace kiln::test
