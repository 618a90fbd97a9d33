// Runs compile jobs. NVRTC serializes compiles inside one process (8 threads take 8x as long), so
// parallel builds use one worker process per job. The in-process runner is for tests and -j 1.
#pragma once

#include "compile/compile_job.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

namespace kiln {
class Jobserver;
}

namespace kiln::compile {

// Called in the parent as each job finishes: (jobs finished so far, total, the job, its output).
using ProgressFn = std::function<void(std::size_t, std::size_t, const CompileJob&, const CompileOutput&)>;

class JobRunner {
public:
  virtual ~JobRunner() = default;
  // Runs every job; outputs are in job order. A job whose worker dies yields ok == false.
  virtual std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn& progress) = 0;
};

// Forks up to `parallel` workers at a time, and with a jobserver no more than it gives tokens for
// (util/jobserver.hpp); each writes its output to a file in `scratch_dir`. NVRTC jobs that parse the
// same headers run in batches that share a precompiled header made in `scratch_dir`, one worker per
// batch (shared_pch.hpp); a worker that dies fails every job of its batch.
std::unique_ptr<JobRunner> make_process_runner(int parallel, std::filesystem::path scratch_dir,
                                               Jobserver* jobserver = nullptr);
// Runs the jobs one after another in this process; with a `scratch_dir`, sharing PCHs there too.
std::unique_ptr<JobRunner> make_in_process_runner(std::filesystem::path scratch_dir = {});

}  // namespace kiln::compile
