#include "plan/build_plan.hpp"

#include "util/diagnostic.hpp"

#include <gtest/gtest.h>

namespace kiln::plan {
namespace {

using Strings = std::vector<std::string>;

compile::Toolkit toolkit() {
  compile::Toolkit t;
  t.root = "/opt/cuda";
  t.nvrtc_major = 13;
  t.supported_archs = {75, 80, 86, 90, 100, 120};
  return t;
}

manifest::Manifest manifest_with(Strings targets) {
  manifest::Manifest m;
  m.path = "/p/kiln.toml";
  m.root = "/p";
  m.name = "p";
  m.targets = std::move(targets);
  m.include_dirs = {"include"};
  m.defines = {"N=4"};
  m.options = {"-use_fast_math"};
  m.sources = {{"b.cu", 3, 1, {"k<int>"}, {{3, 15}}, {"table"}, {"B"}, {"-lineinfo"}}, {"a.cu", 9, 1, {}, {}, {}, {}, {}}};
  return m;
}

TEST(MakePlan, OneJobPerSourceAndTargetSourcesSorted) {
  const Result<BuildPlan> plan = make_plan(manifest_with({"compute_80", "sm_90a", "sm_80"}), toolkit(), {"p/", "/s"});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->targets, (Strings{"sm_80", "sm_90a", "compute_80"}));
  EXPECT_EQ(plan->sources, (Strings{"a.cu", "b.cu"}));
  ASSERT_EQ(plan->jobs.size(), 6u);
  EXPECT_EQ(plan->jobs[0].source, "a.cu");
  EXPECT_EQ(plan->jobs[3].source, "b.cu");
  EXPECT_EQ(plan->jobs[4].target, "sm_90a");
  const compile::CompileJob& b = plan->jobs[3];
  EXPECT_EQ(b.name_expressions, Strings{"k<int>"});
  EXPECT_EQ(b.variables, Strings{"table"});
  // Options in NVRTC's long spelling; nvJitLink's booleans as digits.
  EXPECT_EQ(b.nvrtc_options, (Strings{"-Iinclude", "-I/opt/cuda/include/cccl", "-I/opt/cuda/include", "-DN=4",
                                      "--use_fast_math", "-DB", "--generate-line-info"}));
  EXPECT_EQ(b.link_options, (Strings{"-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1", "-lineinfo"}));
  // Recorded options hold tokens, never the toolkit's absolute path.
  EXPECT_EQ(plan->package_options,
            (Strings{"-Iinclude", "-I<cuda>/include/cccl", "-I<cuda>/include", "-DN=4", "-use_fast_math"}));
}

// A source's include_dirs: searched after the manifest's and before the toolkit's, by its jobs alone
// (NVRTC's and nvcc's options alike); the package-wide recorded options do not hold them.
TEST(MakePlan, ASourcesIncludeDirsReachItsJobsAlone) {
  manifest::Manifest m = manifest_with({"sm_90"});
  m.sources[0].include_dirs = {"b_inc", "<build>/gen"};
  const Result<BuildPlan> plan = make_plan(m, toolkit(), {"", "/s", "/out"});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->jobs.size(), 2u);
  const Strings b_dirs{"-Iinclude", "-Ib_inc", "-I/out/gen", "-I/opt/cuda/include/cccl", "-I/opt/cuda/include"};
  const Strings a_dirs{"-Iinclude", "-I/opt/cuda/include/cccl", "-I/opt/cuda/include"};
  EXPECT_EQ(Strings(plan->jobs[1].nvrtc_options.begin(), plan->jobs[1].nvrtc_options.begin() + 5), b_dirs);
  EXPECT_EQ(Strings(plan->jobs[0].nvrtc_options.begin(), plan->jobs[0].nvrtc_options.begin() + 3), a_dirs);
  EXPECT_EQ(plan->jobs[0].nvrtc_options[3], "-DN=4");
  const PlannedUnit& b = plan->units[1];
  EXPECT_EQ(Strings(b.nvcc_options.begin(), b.nvcc_options.begin() + 5), b_dirs);
  EXPECT_EQ(plan->package_options,
            (Strings{"-Iinclude", "-I<cuda>/include/cccl", "-I<cuda>/include", "-DN=4", "-use_fast_math"}));
}

TEST(MakePlan, DefaultTargetsAreEverySupportedSassPlusLowestPtx) {
  const Result<BuildPlan> plan = make_plan(manifest_with({}), toolkit(), {"", "/s"});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->targets, (Strings{"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_75"}));
}

TEST(MakePlan, UnsupportedTargetNamesWhatIsSupported) {
  const Result<BuildPlan> plan = make_plan(manifest_with({"sm_89"}), toolkit(), {"", "/s"});
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().message.find("'sm_89' is not supported by NVRTC 13.0"), std::string::npos)
      << plan.error().message;
  EXPECT_NE(plan.error().message.find("75 80 86 90 100 120"), std::string::npos);
  // No position: the targets came from --targets.
  EXPECT_EQ(plan.error().message.rfind("target 'sm_89' (from --targets): ", 0), 0u) << plan.error().message;
}

// A target the manifest lists is reported at its element of 'targets', in the compilers' format.
TEST(MakePlan, UnsupportedManifestTargetIsReportedWhereItIsListed) {
  manifest::Manifest m = manifest_with({"sm_80", "sm_89"});
  m.target_positions = {{4, 12}, {4, 21}};
  const Result<BuildPlan> plan = make_plan(m, toolkit(), {"", "/s"});
  ASSERT_FALSE(plan);
  EXPECT_EQ(diagnostic(plan.error()).rfind("/p/kiln.toml:4:21: error: target 'sm_89' is not supported by NVRTC 13.0", 0),
            0u)
      << diagnostic(plan.error());
}

}  // namespace
}  // namespace kiln::plan
