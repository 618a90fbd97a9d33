#include "plan/build_plan.hpp"
#include "plan/image_parts.hpp"

#include <gtest/gtest.h>

namespace kiln::plan {
namespace {

using Strings = std::vector<std::string>;

PlannedName named(std::string expression, bool in_source_text = false) {
  return {.expression = std::move(expression), .origin = NameOrigin::manifest, .in_source_text = in_source_text};
}

PlannedUnit unit_of(std::size_t kernels, std::size_t bound) {
  PlannedUnit unit;
  unit.source = "ops.cu";
  unit.name = "ops.cu";
  unit.kernels_per_image = bound;
  unit.carry_sources = true;
  for (std::size_t i = 0; i < kernels; ++i) unit.kernels.push_back(named("k<" + std::to_string(i) + ">"));
  return unit;
}

Strings expressions(const PlannedUnit& unit) {
  Strings out;
  for (const PlannedName& n : unit.kernels) out.push_back(n.expression);
  return out;
}

TEST(ImageParts, AUnitWithinItsBoundStaysWhole) {
  const std::vector<PlannedUnit> units = split_into_parts(unit_of(4, 4));
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].name, "ops.cu");
  EXPECT_EQ(units[0].part, 0u);
  EXPECT_EQ(units[0].kernels.size(), 4u);
}

TEST(ImageParts, BoundZeroNeverSplits) {
  EXPECT_EQ(split_into_parts(unit_of(100, 0)).size(), 1u);
  EXPECT_EQ(why_whole(unit_of(100, 0)), "");
}

TEST(ImageParts, NamesAreCutInOrderIntoPartsOfTheBound) {
  const std::vector<PlannedUnit> units = split_into_parts(unit_of(5, 2));
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[0].name, "ops.cu");
  EXPECT_EQ(units[1].name, "ops.cu#2");
  EXPECT_EQ(units[2].name, "ops.cu#3");
  EXPECT_EQ(expressions(units[0]), (Strings{"k<0>", "k<1>"}));
  EXPECT_EQ(expressions(units[1]), (Strings{"k<2>", "k<3>"}));
  EXPECT_EQ(expressions(units[2]), (Strings{"k<4>"}));
  for (std::size_t p = 0; p < units.size(); ++p) {
    EXPECT_EQ(units[p].part, p);
    EXPECT_EQ(units[p].source, "ops.cu");
  }
  // Only the first part carries the source for run-time compiles.
  EXPECT_TRUE(units[0].carry_sources);
  EXPECT_FALSE(units[1].carry_sources);
}

TEST(ImageParts, InstantiationsOfTheSourceTextStayInTheFirstPart) {
  PlannedUnit unit = unit_of(4, 3);
  unit.kernels.push_back(named("k<-1>", /*in_source_text=*/true));
  const std::vector<PlannedUnit> units = split_into_parts(unit);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(expressions(units[0]), (Strings{"k<-1>", "k<0>", "k<1>"}));
  EXPECT_EQ(expressions(units[1]), (Strings{"k<2>", "k<3>"}));
}

TEST(ImageParts, TwoSpellingsOfOneKernelStayTogether) {
  PlannedUnit unit = unit_of(3, 2);
  // A runtime request and the canonical spelling the scan resolved it to.
  unit.kernels.insert(unit.kernels.begin() + 2, PlannedName{.expression = "k< 1 >", .origin = NameOrigin::request,
                                                            .canonical = "k<1>"});
  const std::vector<PlannedUnit> units = split_into_parts(unit);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(expressions(units[0]), (Strings{"k<0>", "k<1>", "k< 1 >"}));
  EXPECT_EQ(expressions(units[1]), (Strings{"k<2>"}));
}

TEST(ImageParts, UnitsThatPartsWouldChangeStayWholeAndSayWhy) {
  PlannedUnit group = unit_of(5, 2);
  group.members.push_back(unit_of(1, 2));
  PlannedUnit nvcc = unit_of(5, 2);
  nvcc.compiler = compile::Compiler::nvcc;
  PlannedUnit unscanned = unit_of(5, 2);
  unscanned.scan_failed = true;
  PlannedUnit with_variable = unit_of(5, 2);
  with_variable.variables.push_back(named("table"));
  PlannedUnit text_made = unit_of(5, 2);
  text_made.kernels[0].in_source_text = text_made.kernels[1].in_source_text = true;
  for (const auto& [unit, why] : std::vector<std::pair<PlannedUnit, std::string>>{
           {group, "link group"}, {nvcc, "nvcc compiles it"}, {unscanned, "scan failed"},
           {with_variable, "__device__ or __constant__ variables"}, {text_made, "2 of its instantiations are made by its own text"}}) {
    EXPECT_NE(why_whole(unit).find(why), std::string::npos) << why_whole(unit);
    EXPECT_EQ(split_into_parts(unit).size(), 1u) << why;
  }
  EXPECT_EQ(why_whole(unit_of(5, 2)), "");
}

TEST(ImageParts, PartsOfAVariantAreNamedAfterTheVariant) {
  PlannedUnit unit = unit_of(3, 2);
  unit.variant = "f64";
  unit.name = "f64";
  const std::vector<PlannedUnit> units = split_into_parts(unit);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[1].name, "f64#2");
  EXPECT_EQ(units[1].variant, "f64");
}

TEST(ImageParts, VerboseLinesSayWhichUnitsSplitAndWhyOthersDidNot) {
  std::vector<PlannedUnit> units = split_into_parts(unit_of(5, 2));
  PlannedUnit with_variable = unit_of(3, 2);
  with_variable.name = with_variable.source = "vars.cu";
  with_variable.variables.push_back(named("table"));
  units.push_back(with_variable);
  units.push_back(unit_of(1, 2));   // within its bound: no line
  units.back().name = "small.cu";
  EXPECT_EQ(describe_parts(units),
            (Strings{"image parts: ops.cu: 5 kernels in 3 parts of at most 2",
                     "image parts: vars.cu: 3 kernels in one image (kernels_per_image 2): it has __device__ or "
                     "__constant__ variables, of which each part would hold a copy of its own"}));
}

compile::Toolkit toolkit() {
  compile::Toolkit t;
  t.root = "/opt/cuda";
  t.nvrtc_major = 13;
  t.supported_archs = {80, 90};
  return t;
}

manifest::SourceEntry source(std::string path, Strings instantiate) {
  manifest::SourceEntry s;
  s.path = std::move(path);
  s.line = 3;
  s.column = 1;
  s.instantiations = std::move(instantiate);
  return s;
}

TEST(ImageParts, ThePlanHasOneJobPerPartAndTargetAndOnlyLaterPartsLinkTheirNamesAlone) {
  manifest::Manifest m;
  m.path = "/p/kiln.toml";
  m.root = "/p";
  m.targets = {"sm_80", "sm_90"};
  m.kernels_per_image = 2;
  m.sources = {source("ops.cu", {"k<0>", "k<1>", "k<2>"}), source("small.cu", {"s<0>", "s<1>", "s<2>"})};
  m.sources[1].kernels_per_image = 0;   // the source's own bound wins
  const Result<BuildPlan> plan = make_plan(m, toolkit(), {"", "/s"});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->sources, (Strings{"ops.cu", "ops.cu#2", "small.cu"}));
  ASSERT_EQ(plan->jobs.size(), 6u);
  EXPECT_EQ(plan->jobs[0].name_expressions, (Strings{"k<0>", "k<1>"}));
  EXPECT_FALSE(plan->jobs[0].link_named_kernels_only);
  EXPECT_EQ(plan->jobs[2].source, "ops.cu");   // a part compiles its unit's source
  EXPECT_EQ(plan->jobs[2].unit, "ops.cu#2");
  EXPECT_EQ(plan->jobs[2].name_expressions, (Strings{"k<2>"}));
  EXPECT_TRUE(plan->jobs[2].link_named_kernels_only);
  EXPECT_EQ(plan->jobs[4].name_expressions.size(), 3u);
}

TEST(ImageParts, ASourceNamedLikeAPartKeepsItsNeighbourWhole) {
  manifest::Manifest m;
  m.path = "/p/kiln.toml";
  m.root = "/p";
  m.targets = {"sm_90"};
  m.kernels_per_image = 2;
  m.sources = {source("ops.cu", {"k<0>", "k<1>", "k<2>"}), source("ops.cu#2", {})};
  const Result<BuildPlan> plan = make_plan(m, toolkit(), {"", "/s"});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->sources, (Strings{"ops.cu", "ops.cu#2"}));
  EXPECT_EQ(plan->jobs[0].name_expressions.size(), 3u);
}

}  // namespace
}  // namespace kiln::plan
