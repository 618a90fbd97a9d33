// kiln inspect: tables, JSON, and the image each kernel loads on a given device.
#include "writer/package_writer.hpp"
#include "kiln_runner.hpp"

#include <chrono>
#include <cstring>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

class Inspect : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    s_dir = new ScratchDir;
    const fs::path project = s_dir->copy_project("basic");
    const RunResult r = run_kiln({"build", "-o", "../basic.kiln"}, project);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static RunResult inspect(std::vector<std::string> extra) {
    extra.insert(extra.begin(), {"inspect", "basic.kiln"});
    return run_kiln(extra, s_dir->path());
  }
  static nlohmann::json loads_on(const std::string& device, std::vector<std::string> extra = {}) {
    extra.insert(extra.end(), {"--json", "--device", device});
    const RunResult r = inspect(extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    for (const auto& k : report["kernels"])
      if (k["name"] == "add_one") return k["loads"];
    return nullptr;
  }
  static ScratchDir* s_dir;
};

ScratchDir* Inspect::s_dir = nullptr;

TEST_F(Inspect, TablesShowTargetsUnitsKernelsVariablesAndSources) {
  const RunResult r = inspect({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* expected : {"Kiln package format 2.0", "targets: sm_80 sm_90a compute_80", "kernels/ops.cu: 3 images",
                               "scale<float>", "(anonymous namespace)::hidden", "also: _Z5scaleIiEvPT_S0_i",
                               "lookup", "include/ops_common.cuh", "kernels/local.cuh", "toolkit headers",
                               "kiln.toml", "manifest", "-Iinclude"})
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
}

TEST_F(Inspect, JsonHasEveryKernelWithParamsAndNames) {
  const RunResult r = inspect({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["format"], "2.0");
  EXPECT_EQ(report["metadata"]["package.name"], "basic");
  EXPECT_EQ(report["units"].size(), 2u);
  EXPECT_EQ(report["kernels"].size(), 8u);
  bool found = false;
  for (const auto& k : report["kernels"]) {
    if (k["name"] != "fill") continue;
    found = true;
    EXPECT_EQ(k["lowered_name"], "fill");
    EXPECT_TRUE(k["extern_c"].get<bool>());
    ASSERT_EQ(k["params"].size(), 3u);
    EXPECT_EQ(k["params"][1]["offset"], 8);
    EXPECT_EQ(k["params"][1]["size"], 4);
  }
  EXPECT_TRUE(found);
}

TEST_F(Inspect, DeviceShowsTheImageAndTheRule) {
  EXPECT_EQ(loads_on("sm_80")["target"], "sm_80");
  EXPECT_EQ(loads_on("8.6")["rule"], "lower-minor");
  EXPECT_EQ(loads_on("90")["target"], "sm_90a");
  EXPECT_EQ(loads_on("90")["rule"], "exact-arch-specific");
  EXPECT_EQ(loads_on("10.0")["target"], "compute_80");
  EXPECT_EQ(loads_on("8.7", {"--integrated"})["target"], "compute_80");
  EXPECT_EQ(loads_on("7.5")["target"], nullptr);
  // A 12.8 driver cannot JIT PTX ISA 9.0: nothing loads on a 10.0 GPU then.
  const nlohmann::json old_driver = loads_on("10.0", {"--driver", "12.8"});
  EXPECT_EQ(old_driver["target"], nullptr);
  EXPECT_NE(old_driver["why"].get<std::string>().find("PTX ISA 9.0"), std::string::npos) << old_driver;
}

TEST_F(Inspect, TextWithDeviceSaysWhy) {
  const RunResult r = inspect({"--device", "sm_86"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("loads cubin sm_80 (same major, lower minor"), std::string::npos) << r.out;
}

TEST_F(Inspect, BadDeviceIsUsageError) {
  EXPECT_EQ(inspect({"--device", "hopper"}).exit_code, 2);
  EXPECT_EQ(inspect({"--device", "sm_90", "--driver", "new"}).exit_code, 2);
}

// A package whose thousand kernels all name one unit with a 64 KiB source path: printed in full for
// each, the report was 64 MiB from a 150 KiB file (a 3.9 MB file of that kind took 24 GB). The text
// and the JSON stay within a budget linear in the package; long strings are shortened past it.
TEST(InspectBounds, OutputIsLinearInThePackage) {
  ScratchDir dir;
  format::PackageContents contents;
  contents.targets = {"compute_80"};
  const std::string source = "kernels/" + std::string(64 * 1024, 'a') + ".cu";
  const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n";
  std::vector<std::byte> image(ptx.size() + 1);
  std::memcpy(image.data(), ptx.data(), ptx.size());
  contents.units.push_back({source, {{"compute_80", image, 80}}});
  for (int i = 0; i < 1000; ++i)
    contents.kernels.push_back({"k" + std::to_string(i), "k" + std::to_string(i), source, format::k_kernel_extern_c, {}, {}});
  const Result<std::vector<std::byte>> written = format::write_package(contents);
  ASSERT_TRUE(written.ok()) << written.error().message;
  write_bytes(dir.path() / "long.kiln", *written);
  const std::size_t bound = (1u << 20) + 16 * written->size();  // the budget, and room for the layout

  for (const std::vector<std::string>& form : {std::vector<std::string>{}, {"--json"}, {"--device", "sm_80"}}) {
    std::vector<std::string> args = {"inspect", "long.kiln"};
    args.insert(args.end(), form.begin(), form.end());
    const auto start = std::chrono::steady_clock::now();
    const RunResult r = run_kiln(args, dir.path());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_LT(r.out.size(), bound) << "package of " << written->size() << " bytes";
    EXPECT_LT(seconds, 30.0);
    EXPECT_NE(r.out.find("... (65547 bytes)"), std::string::npos);  // shortened, its length said
  }
}

TEST(InspectErrors, MissingFileAndForeignFileAreBadInput) {
  ScratchDir dir;
  RunResult r = run_kiln({"inspect", "absent.kiln"}, dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("absent.kiln"), std::string::npos) << r.err;
  write_text(dir.path() / "notes.txt", "just some text, definitely not a package\n");
  r = run_kiln({"inspect", "notes.txt"}, dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("notes.txt"), std::string::npos) << r.err;
  r = run_kiln({"inspect", "."}, dir.path());
  EXPECT_EQ(r.exit_code, 3);
}

}  // namespace
}  // namespace kiln::test
