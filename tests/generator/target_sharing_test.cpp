// Which jobs one nvcc run builds together, and with how many threads (compile/target_sharing.hpp).
#include "compile/target_sharing.hpp"

#include <gtest/gtest.h>

namespace kiln::compile {
namespace {

CompileJob nvcc_job(const std::string& source, const std::string& target) {
  CompileJob j;
  j.root = "/p";
  j.source = source;
  j.unit = source;
  j.target = target;
  j.compiler = Compiler::nvcc;
  j.nvcc = "/cuda/bin/nvcc";
  j.work_dir = "/s/nvcc-" + source + "-" + target;   // per job: not part of the compile
  return j;
}

std::vector<std::vector<std::size_t>> indices(const std::vector<JobBatch>& batches) {
  std::vector<std::vector<std::size_t>> out;
  for (const JobBatch& b : batches) out.push_back(b.jobs);
  return out;
}

TEST(PlanBatches, AUnitsNvccJobsShareOneRunAndOtherJobsDoNot) {
  std::vector<CompileJob> jobs = {nvcc_job("a.cu", "sm_80"), nvcc_job("a.cu", "sm_90"), nvcc_job("b.cu", "sm_80"),
                                  nvcc_job("a.cu", "compute_90"), nvcc_job("b.cu", "sm_90")};
  CompileJob nvrtc = nvcc_job("c.cu", "sm_80");
  nvrtc.compiler = Compiler::nvrtc;
  jobs.push_back(nvrtc);
  CompileJob member = nvcc_job("d.cu", "sm_80");
  member.relocatable = true;           // a link group's member: LTO-IR for the group's link
  jobs.push_back(member);
  CompileJob part = nvcc_job("a.cu", "sm_80");
  part.link_named_kernels_only = true; // an image part after the first: only the link keeps its kernels
  jobs.push_back(part);
  const std::vector<JobBatch> batches = plan_batches(jobs, 1, false, false);
  EXPECT_EQ(indices(batches), (std::vector<std::vector<std::size_t>>{{0, 1, 3}, {2, 4}, {5}, {6}, {7}}));
  EXPECT_TRUE(batches[0].one_nvcc_run && batches[1].one_nvcc_run);
  EXPECT_FALSE(batches[2].one_nvcc_run || batches[3].one_nvcc_run || batches[4].one_nvcc_run);
}

TEST(PlanBatches, JobsThatDifferInMoreThanTheirTargetRunApart) {
  CompileJob other_options = nvcc_job("a.cu", "sm_90");
  other_options.nvcc_options = {"-DX=1"};
  CompileJob other_names = nvcc_job("a.cu", "sm_86");
  other_names.name_expressions = {"k<1>"};
  const std::vector<CompileJob> jobs = {nvcc_job("a.cu", "sm_80"), other_options, other_names, nvcc_job("a.cu", "sm_80")};
  EXPECT_EQ(indices(plan_batches(jobs, 1, false, false)), (std::vector<std::vector<std::size_t>>{{0}, {1}, {2}, {3}}))
      << "the same target twice (two variants) is two runs";
}

TEST(PlanBatches, ThreadsOnlyForSlotsOtherwiseIdleAndNeverUnderAJobserver) {
  std::vector<CompileJob> one_unit;
  for (const char* target : {"sm_80", "sm_86", "sm_89", "sm_90", "compute_90"}) one_unit.push_back(nvcc_job("a.cu", target));
  EXPECT_EQ(plan_batches(one_unit, 4, false, false).front().threads, 4);
  EXPECT_EQ(plan_batches(one_unit, 8, false, false).front().threads, 5) << "no more threads than targets";
  EXPECT_EQ(plan_batches(one_unit, 1, false, false).front().threads, 1);
  EXPECT_EQ(plan_batches(one_unit, 4, false, true).front().threads, 1) << "each worker holds one token";
  std::vector<CompileJob> two_units = one_unit;
  for (const char* target : {"sm_80", "sm_90"}) two_units.push_back(nvcc_job("b.cu", target));
  for (const JobBatch& batch : plan_batches(two_units, 4, false, false)) EXPECT_EQ(batch.threads, 2);
  for (const JobBatch& batch : plan_batches(two_units, 2, false, false)) EXPECT_EQ(batch.threads, 1);
}

}  // namespace
}  // namespace kiln::compile
