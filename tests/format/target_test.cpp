#include "format/target.hpp"

#include <gtest/gtest.h>

namespace kiln::format {
namespace {

TEST(ParseTarget, AcceptsEachForm) {
  struct Case {
    const char* text;
    Target target;
  };
  const Case cases[] = {
      {"sm_75", {TargetKind::sass, 75, TargetVariant::plain}},
      {"sm_90a", {TargetKind::sass, 90, TargetVariant::arch_specific}},
      {"sm_100f", {TargetKind::sass, 100, TargetVariant::family}},
      {"sm_121", {TargetKind::sass, 121, TargetVariant::plain}},
      {"sm_10", {TargetKind::sass, 10, TargetVariant::plain}},
      {"compute_90", {TargetKind::ptx, 90, TargetVariant::plain}},
      {"compute_90a", {TargetKind::ptx, 90, TargetVariant::arch_specific}},
      {"compute_100f", {TargetKind::ptx, 100, TargetVariant::family}},
      {"sm_999", {TargetKind::sass, 999, TargetVariant::plain}},
  };
  for (const Case& c : cases) {
    const std::optional<Target> parsed = parse_target(c.text);
    ASSERT_TRUE(parsed) << c.text;
    EXPECT_EQ(*parsed, c.target) << c.text;
    EXPECT_EQ(parsed->name(), c.text) << "one spelling per target";
  }
  EXPECT_EQ(parse_target("sm_121")->major(), 12);
  EXPECT_EQ(parse_target("sm_121")->minor(), 1);
  EXPECT_EQ(parse_target("sm_90a")->major(), 9);
}

TEST(ParseTarget, RejectsEverythingElse) {
  for (const char* text : {"",           "sm",       "sm_",        "sm_9",
                           "sm_9a",      "sm_1000",  "sm_090",     "sm_09",
                           "sm_00",      "SM_90",    "Sm_90",      "sm_90A",
                           "sm_90F",     "sm_90x",   "sm_90af",    "sm_90aa",
                           "sm_a",       "sm90",     "sm-90",      "sm_ 90",
                           " sm_90",     "sm_90 ",   "sm_+90",     "sm_-90",
                           "sm_9O",      "compute_", "compute_9",  "compute90",
                           "COMPUTE_90", "lto_90",   "arch=sm_90", "sm_90,compute_90",
                           "sm_90\n"}) {
    EXPECT_FALSE(parse_target(text)) << "'" << text << "'";
  }
  EXPECT_FALSE(parse_target(std::string_view("sm_90\0", 6)));
}

TEST(Target, OrderIsKindThenArchThenVariant) {
  EXPECT_LT(*parse_target("sm_90"), *parse_target("sm_90a"));
  EXPECT_LT(*parse_target("sm_90a"), *parse_target("sm_100"));
  EXPECT_LT(*parse_target("sm_90a"), *parse_target("sm_90f"));
  EXPECT_LT(*parse_target("sm_120"), *parse_target("compute_75"));
}

}  // namespace
}  // namespace kiln::format
