#include "compile/job_runner.hpp"

#include "compile/link_group.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "util/process_pool.hpp"

#include <chrono>
#include <system_error>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// Runs `job` with the working directory at its root, so NVRTC finds quoted includes and names
// headers relative to the manifest, exactly as in a worker; nvcc inherits it.
CompileOutput compile_in(const CompileJob& job) {
  std::error_code ec;
  const fs::path previous = fs::current_path(ec);
  fs::current_path(job.root, ec);
  if (ec) {
    CompileOutput out;
    out.log = job.display_prefix + job.source + ": error: cannot enter " + job.root.string() + ": " +
              ec.message();
    return out;
  }
  const auto start = std::chrono::steady_clock::now();
  CompileOutput out = !job.members.empty()              ? compile_group(job)
                      : job.compiler == Compiler::nvcc ? compile_with_nvcc(job)
                                                       : compile_job(job);
  // A failed compile reports its time too (-v shows how long NVRTC took to give up).
  if (out.seconds == 0) out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::current_path(previous, ec);
  return out;
}

class InProcessRunner final : public JobRunner {
public:
  std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn& progress) override {
    std::vector<CompileOutput> outputs;
    for (const CompileJob& job : jobs) {
      outputs.push_back(compile_in(job));
      if (progress) progress(outputs.size(), jobs.size(), job, outputs.back());
    }
    return outputs;
  }
};

class ProcessRunner final : public JobRunner {
public:
  ProcessRunner(int parallel, fs::path scratch, Jobserver* jobserver)
      : m_settings{parallel, std::move(scratch), "job-", jobserver} {}

  std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn& progress) override {
    std::vector<CompileOutput> outputs(jobs.size());
    std::size_t finished = 0;
    run_in_processes(
        jobs.size(), m_settings, [&](std::size_t index) { return serialize(compile_in(jobs[index])); },
        [&](std::size_t index, WorkerResult result) {
          CompileOutput& out = outputs[index];
          if (!result.bytes || !deserialize(*result.bytes, out)) {
            out = CompileOutput{};
            out.log = "kiln: the compiler process for " + jobs[index].display_prefix + jobs[index].source + " [" +
                      jobs[index].target + "] " + (result.failure.empty() ? "failed to report its result" : result.failure);
          }
          if (progress) progress(++finished, jobs.size(), jobs[index], out);
        });
    return outputs;
  }

private:
  ProcessPoolSettings m_settings;
};

}  // namespace

std::unique_ptr<JobRunner> make_process_runner(int parallel, fs::path scratch_dir, Jobserver* jobserver) {
  return std::make_unique<ProcessRunner>(parallel, std::move(scratch_dir), jobserver);
}

std::unique_ptr<JobRunner> make_in_process_runner() { return std::make_unique<InProcessRunner>(); }

}  // namespace kiln::compile
