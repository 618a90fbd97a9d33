// Image selection without a GPU: devices from Turing to Blackwell (desktop and integrated) against
// target sets with and without 'a'/'f' cubins and PTX, and drivers too old for the PTX.
#include "select/select_image.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::select {
namespace {

constexpr std::uint32_t k_ptx_13_0 = 90;

std::vector<Candidate> candidates(const std::vector<std::string>& targets, std::uint32_t ptx_version = k_ptx_13_0) {
  std::vector<Candidate> out;
  for (const std::string& t : targets) {
    const std::optional<format::Target> parsed = format::parse_target(t);
    EXPECT_TRUE(parsed) << t;
    if (parsed) out.push_back({*parsed, parsed->kind == format::TargetKind::ptx ? ptx_version : 0});
  }
  return out;
}

struct Case {
  std::uint16_t device;
  bool integrated;
  std::vector<std::string> targets;
  std::string expected;          // the chosen target, or "" for none
  Rule rule = Rule::exact;
  std::uint32_t driver_ptx = k_ptx_13_0;
};

std::string show(const Case& c) {
  std::string s = "device " + arch_string(c.device) + (c.integrated ? " (integrated)" : "") + " with";
  for (const auto& t : c.targets) s += " " + t;
  return s;
}

const std::vector<std::string> k_default = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90",
                                            "sm_100", "sm_103", "sm_110", "sm_120", "sm_121", "compute_75"};
const std::vector<std::string> k_sparse = {"sm_80", "sm_90", "compute_80"};
const std::vector<std::string> k_suffixed = {"sm_80", "sm_90a", "sm_90", "sm_100f", "sm_120f", "compute_90a",
                                             "compute_100f", "compute_80"};

class SelectImage : public ::testing::TestWithParam<Case> {};

// "cc86_desktop_to_sm_80": readable test names instead of byte dumps.
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string name = "cc" + std::to_string(c.device) + (c.integrated ? "_integrated" : "_desktop") + "_to_" +
                     (c.expected.empty() ? std::string("nothing") : c.expected) + "_" + std::to_string(info.index);
  return name;
}

void PrintTo(const Case& c, std::ostream* os) { *os << show(c); }

TEST_P(SelectImage, ChoosesTheExpectedImage) {
  const Case& c = GetParam();
  const std::vector<Candidate> cs = candidates(c.targets);
  const Selection s = select_image({c.device, c.integrated, c.driver_ptx}, cs);
  if (c.expected.empty()) {
    ASSERT_FALSE(s.choice) << show(c) << " chose " << cs[s.choice->index].target.name();
    EXPECT_NE(s.failure.reason.find(arch_string(c.device)), std::string::npos) << s.failure.reason;
    return;
  }
  ASSERT_TRUE(s.choice) << show(c) << ": " << s.failure.reason;
  EXPECT_EQ(cs[s.choice->index].target.name(), c.expected) << show(c);
  EXPECT_EQ(s.choice->rule, c.rule) << show(c);
}

INSTANTIATE_TEST_SUITE_P(
    DefaultTargets, SelectImage,
    ::testing::Values(Case{75, false, k_default, "sm_75"}, Case{80, false, k_default, "sm_80"},
                      Case{86, false, k_default, "sm_86"}, Case{87, true, k_default, "sm_87"},
                      Case{89, false, k_default, "sm_89"}, Case{90, false, k_default, "sm_90"},
                      Case{100, false, k_default, "sm_100"}, Case{103, false, k_default, "sm_103"},
                      Case{110, true, k_default, "sm_110"}, Case{120, false, k_default, "sm_120"},
                      Case{121, false, k_default, "sm_121"},
                      // A future architecture runs the PTX.
                      Case{130, false, k_default, "compute_75", Rule::ptx}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    SparseTargets, SelectImage,
    ::testing::Values(Case{80, false, k_sparse, "sm_80"},
                      Case{86, false, k_sparse, "sm_80", Rule::lower_minor},
                      Case{89, false, k_sparse, "sm_80", Rule::lower_minor},
                      // Integrated GPUs have no cross-minor cubin compatibility: PTX instead.
                      Case{87, true, k_sparse, "compute_80", Rule::ptx},
                      Case{90, false, k_sparse, "sm_90"},
                      Case{100, false, k_sparse, "compute_80", Rule::ptx},
                      Case{110, true, k_sparse, "compute_80", Rule::ptx},
                      Case{121, false, k_sparse, "compute_80", Rule::ptx},
                      Case{75, false, k_sparse, ""}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    SuffixedTargets, SelectImage,
    ::testing::Values(Case{90, false, k_suffixed, "sm_90a", Rule::exact_arch_specific},
                      Case{100, false, k_suffixed, "sm_100f", Rule::exact},
                      // 10.3 is in sm_100f's family.
                      Case{103, false, k_suffixed, "sm_100f", Rule::lower_minor},
                      Case{121, false, k_suffixed, "sm_120f", Rule::lower_minor},
                      // 11.0 is in no listed family; plain PTX is the way.
                      Case{110, true, k_suffixed, "compute_80", Rule::ptx},
                      Case{89, false, k_suffixed, "sm_80", Rule::lower_minor}),
    case_name);

INSTANTIATE_TEST_SUITE_P(
    PtxRules, SelectImage,
    ::testing::Values(
        // compute_90a PTX only on exactly 9.0; on 9.0 it beats plain compute_80 PTX.
        Case{90, false, {"compute_90a", "compute_80"}, "compute_90a", Rule::ptx},
        Case{100, false, {"compute_90a", "compute_80"}, "compute_80", Rule::ptx},
        // compute_100f only inside the 10.x family.
        Case{103, false, {"compute_100f", "compute_80"}, "compute_100f", Rule::ptx},
        Case{120, false, {"compute_100f", "compute_80"}, "compute_80", Rule::ptx},
        // Highest compatible PTX wins.
        Case{90, false, {"compute_75", "compute_90"}, "compute_90", Rule::ptx},
        // PTX for a newer architecture never runs.
        Case{80, false, {"compute_90"}, ""},
        // A cubin beats PTX, even 'a' PTX.
        Case{90, false, {"sm_80", "sm_90", "compute_90a"}, "sm_90"},
        // 'a' cubins only on the exact architecture.
        Case{100, false, {"sm_90a", "compute_90"}, "compute_90", Rule::ptx},
        // A driver too old for the PTX ISA: nothing to run.
        Case{90, false, {"sm_80", "compute_80"}, "", Rule::ptx, 88},
        // Cubins need no JIT: an old driver still runs them.
        Case{90, false, {"sm_90", "compute_80"}, "sm_90", Rule::exact, 88}),
    case_name);

TEST(SelectImage, ForcedPtxSkipsCubins) {
  const std::vector<Candidate> cs = candidates({"sm_90", "compute_80"});
  const Selection s = select_image({90, false, k_ptx_13_0}, cs, format::TargetKind::ptx);
  ASSERT_TRUE(s.choice);
  EXPECT_EQ(cs[s.choice->index].target.name(), "compute_80");
}

TEST(SelectImage, FailureNamesDeviceTargetsAndReasons) {
  const std::vector<Candidate> cs = candidates({"sm_80", "compute_90"}, 91);
  const Selection s = select_image({90, false, k_ptx_13_0}, cs);
  ASSERT_FALSE(s.choice);
  EXPECT_NE(s.failure.reason.find("compute capability 9.0"), std::string::npos) << s.failure.reason;
  EXPECT_NE(s.failure.reason.find("sm_80, compute_90"), std::string::npos) << s.failure.reason;
  EXPECT_NE(s.failure.reason.find("across major"), std::string::npos) << s.failure.reason;
  EXPECT_NE(s.failure.reason.find("PTX ISA 9.1"), std::string::npos) << s.failure.reason;
}

TEST(MaxPtxVersion, FollowsTheDriversCudaVersion) {
  EXPECT_EQ(max_ptx_version_for_driver(13000), 90u);
  EXPECT_EQ(max_ptx_version_for_driver(13010), 91u);
  EXPECT_EQ(max_ptx_version_for_driver(12040), 84u);
  EXPECT_EQ(max_ptx_version_for_driver(12060), 85u);
  EXPECT_EQ(max_ptx_version_for_driver(12080), 87u);
  EXPECT_EQ(max_ptx_version_for_driver(12090), 88u);
  EXPECT_EQ(max_ptx_version_for_driver(0), 0u);
}

TEST(CudaVersion, ParsesMajorDotOneDigitMinor) {
  EXPECT_EQ(parse_cuda_version("13.0"), 13000);
  EXPECT_EQ(parse_cuda_version("13.1"), 13010);
  EXPECT_EQ(parse_cuda_version("12.8"), 12080);
  EXPECT_EQ(parse_cuda_version("999.9"), 999090);
  for (const char* bad : {"", "13", "13.", ".1", "13.10", "13.1.0", "-13.0", "+13.0", "13.-", "13.x", "1000.0",
                          "99999999999.0", " 13.0", "13.0 "}) {
    EXPECT_EQ(parse_cuda_version(bad), std::nullopt) << bad;
  }
}

TEST(Family, SameMajorAndAtLeastTheMinor) {
  EXPECT_TRUE(in_family(100, 103));
  EXPECT_TRUE(in_family(120, 121));
  EXPECT_FALSE(in_family(103, 100));
  EXPECT_FALSE(in_family(100, 110));
  EXPECT_FALSE(in_family(110, 120));
}

}  // namespace
}  // namespace kiln::select
