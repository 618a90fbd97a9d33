// Image selection through the runtime: the device the fake driver reports, the targets a package
// holds, and the image the runtime actually hands to cuLibraryLoadData.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include <cstdlib>

namespace kiln::testing {
namespace {

const std::vector<std::string> k_plain = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
                                          "sm_100", "sm_103", "sm_110", "sm_120", "sm_121", "compute_75"};
const std::vector<std::string> k_sparse = {"sm_80", "sm_90", "compute_80"};
const std::vector<std::string> k_suffixed = {"sm_80", "sm_90a", "sm_90", "sm_100f", "sm_120f",
                                             "compute_90a", "compute_100f", "compute_80"};
const std::vector<std::string> k_ptx_only = {"compute_75"};
const std::vector<std::string> k_arch_only = {"sm_90a", "sm_100a", "compute_90"};

struct Case {
  int arch;
  bool integrated;
  const std::vector<std::string>* targets;
  const char* set;        // the name of the target set, for the test name
  std::string expected;   // the target loaded, or "" for NO_IMAGE_FOR_DEVICE
};

std::vector<Case> cases() {
  struct Device {
    int arch;
    bool integrated;
  };
  const std::vector<Device> devices = {{75, false}, {80, false},  {86, false},  {87, true},
                                       {89, false}, {90, false},  {100, false}, {103, false},
                                       {110, true}, {120, false}, {121, false}};
  // Expected target per device, in the order of `devices`.
  const std::vector<std::string> plain = {"sm_75", "sm_80",  "sm_86",  "sm_87",  "sm_89", "sm_90",
                                          "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"};
  const std::vector<std::string> sparse = {"",           "sm_80",      "sm_80",      "compute_80",
                                           "sm_80",      "sm_90",      "compute_80", "compute_80",
                                           "compute_80", "compute_80", "compute_80"};
  const std::vector<std::string> suffixed = {"",        "sm_80",   "sm_80",      "compute_80",
                                             "sm_80",   "sm_90a",  "sm_100f",    "sm_100f",
                                             "compute_80", "sm_120f", "sm_120f"};
  const std::vector<std::string> ptx_only(devices.size(), "compute_75");
  const std::vector<std::string> arch_only = {"",        "",           "",           "",
                                              "",        "sm_90a",     "sm_100a",    "compute_90",
                                              "compute_90", "compute_90", "compute_90"};
  std::vector<Case> out;
  const auto add = [&](const std::vector<std::string>* targets, const char* set,
                       const std::vector<std::string>& expected) {
    for (std::size_t i = 0; i < devices.size(); ++i) {
      out.push_back({devices[i].arch, devices[i].integrated, targets, set, expected[i]});
    }
  };
  add(&k_plain, "plain", plain);
  add(&k_sparse, "sparse", sparse);
  add(&k_suffixed, "suffixed", suffixed);
  add(&k_ptx_only, "ptx_only", ptx_only);
  add(&k_arch_only, "arch_only", arch_only);
  return out;
}

class Selection : public RuntimeTest, public ::testing::WithParamInterface<Case> {};

TEST_P(Selection, LoadsTheImageTheRulesChoose) {
  const Case& c = GetParam();
  fake->devices = {FakeDevice{c.arch, c.integrated}};
  kiln::Package package = open(single_kernel_package(*c.targets));
  if (c.expected.empty()) {
    try {
      package.kernel("k");
      FAIL() << "expected NO_IMAGE_FOR_DEVICE";
    } catch (const kiln::Error& e) {
      EXPECT_EQ(e.status(), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
      EXPECT_NE(std::string(e.what()).find("app.kiln: k on device 0"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(fake->loads().empty());
    return;
  }
  package.kernel("k");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", c.expected)});
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return std::string(c.set) + "_cc" + std::to_string(c.arch) + (c.integrated ? "_integrated" : "") + "_to_" +
         (c.expected.empty() ? std::string("nothing") : c.expected);
}

INSTANTIATE_TEST_SUITE_P(Devices, Selection, ::testing::ValuesIn(cases()), case_name);

TEST_F(RuntimeTest, PtxNewerThanTheDriverIsRefused) {
  fake->devices = {FakeDevice{90, false}};
  fake->driver_version = 12080;  // accepts PTX ISA 8.7; the images are 9.0
  kiln::Package package = open(single_kernel_package({"compute_80"}));
  try {
    package.kernel("k");
    FAIL() << "expected NO_IMAGE_FOR_DEVICE";
  } catch (const kiln::Error& e) {
    EXPECT_EQ(e.status(), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
    EXPECT_NE(std::string(e.what()).find("newer than the driver accepts"), std::string::npos) << e.what();
  }
  // A cubin does not care about the driver's PTX ISA.
  kiln::Package with_cubin = open(single_kernel_package({"sm_90", "compute_80"}));
  with_cubin.kernel("k");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_90")});
}

struct Forced {
  const char* force;
  std::string expected;   // "" for NO_IMAGE_FOR_DEVICE
  const char* message;    // a part of the failure message
};

class ForceTarget : public RuntimeTest, public ::testing::WithParamInterface<Forced> {};

TEST_P(ForceTarget, NarrowsTheChoice) {
  const Forced& f = GetParam();
  kiln::test::set_variable("KILN_FORCE_TARGET", f.force);  // read when the package is opened
  fake->devices = {FakeDevice{90, false}};
  kiln::Package package = open(single_kernel_package({"sm_80", "sm_90", "compute_80"}));
  if (f.expected.empty()) {
    try {
      package.kernel("k");
      FAIL() << "expected NO_IMAGE_FOR_DEVICE";
    } catch (const kiln::Error& e) {
      EXPECT_EQ(e.status(), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
      EXPECT_NE(std::string(e.what()).find(f.message), std::string::npos) << e.what();
    }
    return;
  }
  package.kernel("k");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", f.expected)});
}

INSTANTIATE_TEST_SUITE_P(
    Environment, ForceTarget,
    ::testing::Values(Forced{"ptx", "compute_80", ""}, Forced{"sass", "sm_90", ""},
                      Forced{"compute_80", "compute_80", ""}, Forced{"sm_90", "sm_90", ""},
                      Forced{"sm_80", "", "a cubin never runs across major versions"},
                      Forced{"sm_100", "", "KILN_FORCE_TARGET=sm_100 but ops.cu has no image for it"},
                      Forced{"bogus", "", "KILN_FORCE_TARGET=bogus is not"}),
    [](const ::testing::TestParamInfo<Forced>& param) { return std::string(param.param.force); });

TEST_F(RuntimeTest, ForcedSassWithOnlyPtxFindsNothing) {
  kiln::test::set_variable("KILN_FORCE_TARGET", "sass");
  kiln::Package package = open(single_kernel_package({"compute_75"}));
  try {
    package.kernel("k");
    FAIL() << "expected NO_IMAGE_FOR_DEVICE";
  } catch (const kiln::Error& e) {
    EXPECT_EQ(e.status(), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
    EXPECT_NE(std::string(e.what()).find("excluded by the forced target kind"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::testing
