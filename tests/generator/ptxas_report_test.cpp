// Reading ptxas's -v report out of a compile's log: each kernel's spills, for its target, in nvcc's
// and nvJitLink's layouts; nothing where the report has no line for it; the log without the report.
#include "compile/ptxas_report.hpp"

#include <gtest/gtest.h>

namespace kiln::compile {
namespace {

// nvcc's output for two targets, with a warning and a device function's properties among them.
constexpr const char* k_nvcc_log =
    "ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Function properties for _Z5twicef\n"
    "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_80'\n"
    "ptxas info    : Function properties for _Z1kPf\n"
    "    784 bytes stack frame, 520 bytes spill stores, 576 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 784 bytes cumulative stack size, 372 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z1kPf\n"
    "    800 bytes stack frame, 540 bytes spill stores, 592 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 800 bytes cumulative stack size\n";

// nvJitLink's info log for one target: its continuation lines start "ptxas         .", a blank line ends it.
constexpr const char* k_nvjitlink_log =
    "ptxas info    : Compiling entry function 'plain' for 'sm_90'\n"
    "ptxas info    : Function properties for plain\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 0 barriers\n"
    "ptxas info    : Function properties for spills\n"
    "ptxas         .     16 bytes stack frame, 12 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Compile time = 2.282 ms\n"
    "\n";

TEST(PtxasReport, EachKernelsSpillsForItsTargetInNvccsOutput) {
  const std::optional<Spills> sm80 = ptxas_spills(k_nvcc_log, "sm_80", "_Z1kPf");
  const std::optional<Spills> sm90 = ptxas_spills(k_nvcc_log, "sm_90", "_Z1kPf");
  ASSERT_TRUE(sm80 && sm90);
  EXPECT_EQ(sm80->stores, 520u);
  EXPECT_EQ(sm80->loads, 576u);
  EXPECT_EQ(sm90->stores, 540u);
  EXPECT_EQ(sm90->loads, 592u);
  EXPECT_FALSE(ptxas_spills(k_nvcc_log, "sm_86", "_Z1kPf")) << "no report for a target nvcc did not build";
}

TEST(PtxasReport, NvJitLinksLinesAndAnyTargetWhenTheReportNamesNone) {
  const std::optional<Spills> spills = ptxas_spills(k_nvjitlink_log, "sm_90", "spills");
  ASSERT_TRUE(spills);
  EXPECT_EQ(spills->stores, 12u);
  EXPECT_EQ(spills->loads, 8u);
  const std::optional<Spills> plain = ptxas_spills(k_nvjitlink_log, "sm_90", "plain");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->stores, 0u);
}

TEST(PtxasReport, NothingWhereTheReportHasNoLineForTheKernel) {
  EXPECT_FALSE(ptxas_spills(k_nvcc_log, "sm_90", "_Z5other"));
  EXPECT_FALSE(ptxas_spills("", "sm_90", "_Z1kPf"));
  EXPECT_FALSE(ptxas_spills("k.cu:4:7: warning #177-D: variable \"x\" was declared but never referenced\n", "sm_90", "x"));
  // Its name is a prefix of another's: only its own properties count.
  EXPECT_FALSE(ptxas_spills(k_nvcc_log, "sm_90", "_Z1k"));
}

TEST(PtxasReport, TheLogWithoutTheReportKeepsWarningsAndOtherLines) {
  EXPECT_EQ(without_ptxas_info(k_nvcc_log),
            "ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24");
  EXPECT_EQ(without_ptxas_info(k_nvjitlink_log), "");
  EXPECT_EQ(without_ptxas_info(std::string("k.cu:4:7: warning: x\n") + k_nvjitlink_log), "k.cu:4:7: warning: x");
  // A log without the report is left as it was, its last newline included.
  const std::string plain = "k.cu:4:7: warning #177-D: unused\n    int x;\n        ^\n";
  EXPECT_EQ(without_ptxas_info(plain), plain);
}

}  // namespace
}  // namespace kiln::compile
