// kiln inspect: tables, JSON, and the image each kernel loads on a given device.
#include "kiln_runner.hpp"

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
  for (const char* expected : {"Kiln package format 1.1", "targets: sm_80 sm_90a compute_80", "kernels/ops.cu: 3 images",
                               "scale<float>", "(anonymous namespace)::hidden", "also: _Z5scaleIiEvPT_S0_i",
                               "lookup", "include/ops_common.cuh", "kernels/local.cuh", "toolkit headers",
                               "kiln.toml", "manifest", "-Iinclude"})
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
}

TEST_F(Inspect, JsonHasEveryKernelWithParamsAndNames) {
  const RunResult r = inspect({"--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["format"], "1.1");
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
