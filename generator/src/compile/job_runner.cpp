#include "compile/job_runner.hpp"

#include "compile/link_group.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_library.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "compile/shared_pch.hpp"
#include "compile/target_sharing.hpp"
#include "util/byte_stream.hpp"
#include "util/diagnostic.hpp"
#include "util/process_pool.hpp"

#include <algorithm>
#include <chrono>
#include <system_error>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// Runs `compile` with the working directory at `job`'s root, so NVRTC finds quoted includes and
// names headers relative to the manifest, exactly as in a worker; nvcc inherits it.
template <class Compile>
std::vector<CompileOutput> compile_in(const CompileJob& job, std::size_t count, Compile compile) {
  std::error_code ec;
  const fs::path previous = fs::current_path(ec);
  fs::current_path(job.root, ec);
  if (ec) {
    CompileOutput out;
    out.log = diagnostic(job_location(job), "error", "cannot enter " + job.root.string() + ": " + ec.message());
    return std::vector<CompileOutput>(count, out);
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<CompileOutput> outs = compile();
  // A failed compile reports its time too (-v shows how long NVRTC took to give up).
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (CompileOutput& out : outs)
    if (out.seconds == 0) out.seconds = seconds / static_cast<double>(outs.size());
  fs::current_path(previous, ec);
  return outs;
}

CompileOutput compile_in(const CompileJob& job) {
  return std::move(compile_in(job, 1, [&] {
    return std::vector<CompileOutput>{!job.members.empty()              ? compile_group(job)
                                      : job.compiler == Compiler::nvcc ? compile_with_nvcc(job)
                                                                       : compile_job(job)};
  }).front());
}

// Runs one unit's nvcc jobs in one nvcc run (target_sharing.hpp).
std::vector<CompileOutput> run_nvcc_unit(const std::vector<CompileJob>& jobs, const JobBatch& batch) {
  std::vector<CompileJob> unit;
  for (const std::size_t index : batch.jobs) unit.push_back(jobs[index]);
  return compile_in(unit.front(), unit.size(), [&] {
    const std::unique_ptr<ChildRunner> runner = make_child_runner();
    return compile_with_nvcc(unit, batch.threads, *runner);
  });
}

// Runs one batch of jobs (shared_pch.hpp) in this process, one after another: the first of two or
// more creates the batch's precompiled header at `pch`, and the others use it if it was made. The
// headers of a job NVRTC compiled with the PCH then include the first's: NVRTC's time trace leaves
// out what came from the PCH.
std::vector<CompileOutput> run_batch(const std::vector<CompileJob>& jobs, const JobBatch& planned,
                                     const fs::path& pch, const std::function<void(std::size_t, const CompileOutput&)>& done) {
  if (planned.one_nvcc_run) {
    std::vector<CompileOutput> outputs = run_nvcc_unit(jobs, planned);
    if (done)
      for (std::size_t k = 0; k < outputs.size(); ++k) done(planned.jobs[k], outputs[k]);
    return outputs;
  }
  const std::vector<std::size_t>& batch = planned.jobs;
  std::vector<CompileOutput> outputs;
  const bool shared = batch.size() > 1 && !pch.empty();
  bool made = false;
  for (const std::size_t index : batch) {
    CompileJob job = jobs[index];
    if (shared && outputs.empty()) job.create_pch = pch;
    if (made) job.use_pch = pch;
    CompileOutput out = compile_in(job);
    if (out.used_pch && !outputs.empty()) out.headers = with_seed_headers(outputs.front().headers, out.headers);
    std::error_code ignored;
    if (!job.create_pch.empty()) made = out.ok && fs::exists(pch, ignored);
    if (done) done(index, out);
    outputs.push_back(std::move(out));
  }
  std::error_code ignored;   // 100-200 MB: gone with the batch
  if (shared) fs::remove(pch, ignored);
  return outputs;
}

class InProcessRunner final : public JobRunner {
public:
  explicit InProcessRunner(fs::path scratch) : m_scratch(std::move(scratch)) {}

  std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn& progress) override {
    std::vector<CompileOutput> outputs(jobs.size());
    std::size_t finished = 0;
    const bool pch = !m_scratch.empty() && shared_pch_enabled();
    for (const JobBatch& batch : plan_batches(jobs, 1, pch, false)) {
      run_batch(jobs, batch, pch ? m_scratch / "kiln.pch" : fs::path(), [&](std::size_t index, const CompileOutput& out) {
        outputs[index] = out;
        if (progress) progress(++finished, jobs.size(), jobs[index], out);
      });
    }
    return outputs;
  }

private:
  fs::path m_scratch;
};

// A batch's outputs in one worker's result: their count, then each serialized and whether it used the PCH.
std::vector<std::byte> serialize_batch(const std::vector<CompileOutput>& outputs) {
  ByteWriter out;
  out.u64(outputs.size());
  for (const CompileOutput& output : outputs) {
    const std::vector<std::byte> bytes = serialize(output);
    out.bytes(bytes.data(), bytes.size());
    out.u64(output.used_pch ? 1 : 0);
  }
  return out.take();
}

bool deserialize_batch(const std::vector<std::byte>& bytes, std::size_t expected, std::vector<CompileOutput>& outputs) {
  ByteReader in(bytes);
  std::uint64_t count = 0;
  if (!in.u64(count) || count != expected) return false;
  outputs.resize(expected);
  for (CompileOutput& output : outputs) {
    std::vector<std::byte> one;
    std::uint64_t used_pch = 0;
    if (!in.blob(one) || !deserialize(one, output) || !in.u64(used_pch)) return false;
    output.used_pch = used_pch != 0;
  }
  return in.at_end();
}

// Whether every job of `batch` is nvcc's alone: no NVRTC or nvJitLink in this process.
bool nvcc_alone(const std::vector<CompileJob>& jobs, const JobBatch& batch) {
  return std::all_of(batch.jobs.begin(), batch.jobs.end(), [&](std::size_t i) { return compiles_directly(jobs[i]); });
}

class ProcessRunner final : public JobRunner {
public:
  ProcessRunner(int parallel, fs::path scratch, Jobserver* jobserver)
      : m_settings{parallel, std::move(scratch), "job-", jobserver} {}


  std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn& progress) override {
    const std::vector<JobBatch> batches =
        plan_batches(jobs, m_settings.parallel, shared_pch_enabled(), m_settings.jobserver != nullptr);
    std::vector<CompileOutput> outputs(jobs.size());
    std::size_t finished = 0;
    // A lone nvcc run needs no worker: nvcc is a process of its own, so its crash cannot take the
    // build down, and a worker would only copy this process to start it (a fork, its result
    // serialized and read back).
    if (batches.size() == 1 && nvcc_alone(jobs, batches[0])) {
      run_batch(jobs, batches[0], {}, [&](std::size_t index, const CompileOutput& out) {
        outputs[index] = out;
        if (progress) progress(++finished, jobs.size(), jobs[index], out);
      });
      return outputs;
    }
    // Workers that compile with NVRTC or link with nvJitLink inherit the libraries loaded here once.
    if (std::any_of(jobs.begin(), jobs.end(), [](const CompileJob& job) { return !compiles_directly(job); }))
      (void)load_nvrtc();   // an error: each compile reports it
    run_in_processes(
        batches.size(), m_settings,
        [&](std::size_t b) {
          const fs::path pch = m_settings.scratch_dir / ("batch-" + std::to_string(b) + ".pch");
          return serialize_batch(run_batch(jobs, batches[b], pch, nullptr));
        },
        [&](std::size_t b, WorkerResult result) {
          const std::vector<std::size_t>& batch = batches[b].jobs;
          std::vector<CompileOutput> done;
          const bool read = result.bytes && deserialize_batch(*result.bytes, batch.size(), done);
          for (std::size_t k = 0; k < batch.size(); ++k) {
            const CompileJob& job = jobs[batch[k]];
            CompileOutput& out = outputs[batch[k]];
            if (read) {
              out = std::move(done[k]);
            } else {
              out = CompileOutput{};
              out.log = "kiln: the compiler process for " + job.display_prefix + job.source + " [" + job.target + "] " +
                        (result.failure.empty() ? "failed to report its result" : result.failure);
            }
            if (progress) progress(++finished, jobs.size(), job, out);
          }
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

std::unique_ptr<JobRunner> make_in_process_runner(fs::path scratch_dir) {
  return std::make_unique<InProcessRunner>(std::move(scratch_dir));
}

}  // namespace kiln::compile
