// kiln check's checks (check/unit_check.hpp), which the configure-time checker of Kiln's own tree
// makes too: every problem one line, in kiln check's order, NVRTC asked only when a target needs it,
// and no NVRTC facts is not a refusal.
#include "check/unit_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace kiln::check {
namespace {

NvrtcFacts cuda_13_0() { return NvrtcFacts{13, 0, 13, 0, {75, 80, 86, 90, 100, 120}}; }

TEST(UnitCheck, EveryProblemIsOneLineInKilnChecksOrder) {
  std::ostringstream errors;
  const CheckOutcome outcome =
      check_unit({{"sm80", "sm_52", "sm_90"}, {"-O3"}}, [] { return Result<NvrtcFacts>(cuda_13_0()); }, errors);
  EXPECT_EQ(outcome, CheckOutcome::refused);
  const std::string text = errors.str();
  EXPECT_TRUE(text.starts_with("kiln: error: option '-O3' is not an option NVRTC")) << text;
  EXPECT_NE(text.find("\nkiln: error: unknown target 'sm80'\nkiln: error: target 'sm_52' is not supported by "
                      "NVRTC 13.0 (it supports 75 80 86 90 100 120)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;
}

TEST(UnitCheck, NvrtcIsAskedOnlyForAWellFormedTarget) {
  int asked = 0;
  const NvrtcFactsSource nvrtc = [&] {
    ++asked;
    return Result<NvrtcFacts>(cuda_13_0());
  };
  std::ostringstream errors;
  EXPECT_EQ(check_unit({{}, {"-maxrregcount", "64"}}, nvrtc, errors), CheckOutcome::accepted);
  EXPECT_EQ(check_unit({{"sm80"}, {}}, nvrtc, errors), CheckOutcome::refused);
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(check_unit({{"sm_90", "compute_90"}, {}}, nvrtc, errors), CheckOutcome::accepted);
  EXPECT_EQ(asked, 1);
}

TEST(UnitCheck, FactsThatCannotBeHadAreNoRefusal) {
  std::ostringstream errors;
  const NvrtcFactsSource none = [] { return Result<NvrtcFacts>(Error{"no CUDA toolkit found"}); };
  EXPECT_EQ(check_unit({{"sm_90"}, {}}, none, errors), CheckOutcome::nvrtc_unknown);
  EXPECT_EQ(errors.str(), "kiln: error: no CUDA toolkit found\n");
  // A refusal found before stays one.
  EXPECT_EQ(check_unit({{"sm_90"}, {"-O3"}}, none, errors), CheckOutcome::refused);
}

// The probe's words (nvrtc_facts_probe.c), which the checker is given on its command line.
TEST(UnitCheck, TheProbesFactsAreReadAndImplausibleOnesRefused) {
  const std::optional<NvrtcFacts> facts = parse_nvrtc_facts("13 0 13 0 90 75 80");
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->archs, (std::vector<int>{75, 80, 90}));
  EXPECT_EQ(facts->nvrtc_major, 13);
  for (const char* text : {"", "13 0 13 0", "13 0 13 0 75 x", "0 0 13 0 75", "13 0 13 0 5"})
    EXPECT_FALSE(parse_nvrtc_facts(text)) << text;
}

}  // namespace
}  // namespace kiln::check
