#include "compile/target_sharing.hpp"

#include "compile/nvcc_compiler.hpp"
#include "compile/shared_pch.hpp"

#include <algorithm>
#include <tuple>

namespace kiln::compile {

bool same_compile_but_target(const CompileJob& a, const CompileJob& b) {
  const auto fields = [](const CompileJob& j) {
    return std::tie(j.root, j.source, j.display_prefix, j.manifest_entry.file, j.manifest_entry.line, j.manifest_file,
                    j.name_expressions, j.variables, j.nvrtc_options, j.link_options, j.compiler, j.expression_origins, j.keep_symbols,
                    j.trim_variables, j.link_named_kernels_only, j.nvcc, j.nvcc_options, j.unit, j.relocatable,
                    j.nvcc_fallback, j.device_runtime);
  };
  return a.members.empty() && b.members.empty() && fields(a) == fields(b);
}

std::vector<JobBatch> plan_batches(const std::vector<CompileJob>& jobs, int parallel, bool shared_pch, bool jobserver) {
  std::vector<JobBatch> batches;
  std::vector<std::size_t> others;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (!compiles_directly(jobs[i])) {
      others.push_back(i);
      continue;
    }
    const auto unit = std::find_if(batches.begin(), batches.end(), [&](const JobBatch& b) {
      return same_compile_but_target(jobs[b.jobs.front()], jobs[i]) &&
             std::none_of(b.jobs.begin(), b.jobs.end(), [&](std::size_t k) { return jobs[k].target == jobs[i].target; });
    });
    if (unit != batches.end()) unit->jobs.push_back(i);
    else batches.push_back({{i}, true, 1});
  }
  std::vector<CompileJob> rest;
  for (const std::size_t i : others) rest.push_back(jobs[i]);
  for (const std::vector<std::size_t>& batch : plan_shared_pch(rest, parallel, shared_pch)) {
    JobBatch mapped;
    for (const std::size_t k : batch) mapped.jobs.push_back(others[k]);
    batches.push_back(std::move(mapped));
  }
  const int idle = batches.empty() ? 1 : std::max<int>(1, parallel / static_cast<int>(batches.size()));
  for (JobBatch& batch : batches)
    if (batch.one_nvcc_run && !jobserver) batch.threads = std::min<int>(idle, static_cast<int>(batch.jobs.size()));
  return batches;
}

}  // namespace kiln::compile
