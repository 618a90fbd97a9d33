// One nvcc run per unit: the jobs of a unit that nvcc compiles directly (nvcc_compiler.hpp) and that
// differ in their target alone run together in one worker, so nvcc's front end and cicc run once
// per virtual architecture, not once per target. Every other job batches as shared_pch.hpp says.
// The compile cache still sees one job per target: it sits above the runner that batches.
#pragma once

#include "compile/compile_job.hpp"

#include <cstddef>
#include <vector>

namespace kiln::compile {

struct JobBatch {
  std::vector<std::size_t> jobs;     // indices into the runner's jobs
  bool one_nvcc_run = false;         // a unit's direct nvcc jobs: compile_with_nvcc(jobs, threads)
  int threads = 1;                   // nvcc's --threads for such a batch
};

// Whether two jobs are the same compile apart from their target (and the per-job files the runner
// chooses: work directory, trace file, PCH).
bool same_compile_but_target(const CompileJob& a, const CompileJob& b);

// Batches for `parallel` workers. A unit's nvcc run gets --threads only while there are fewer
// batches than workers, and never more threads than it has targets or than the workers left idle
// (`parallel` / batches): the build never runs more than its job slots. Under make's jobserver
// (`jobserver`) every run gets one thread: each worker holds one token.
std::vector<JobBatch> plan_batches(const std::vector<CompileJob>& jobs, int parallel, bool shared_pch, bool jobserver);

}  // namespace kiln::compile
