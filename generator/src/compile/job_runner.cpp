#include "compile/job_runner.hpp"

#include "compile/nvrtc_compiler.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <system_error>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// Runs `job` with the working directory at its root, so NVRTC finds quoted includes and names
// headers relative to the manifest, exactly as in a worker.
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
  CompileOutput out = compile_job(job);
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

bool write_file(const fs::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

std::vector<std::byte> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

class ProcessRunner final : public JobRunner {
public:
  ProcessRunner(int parallel, fs::path scratch) : m_parallel(parallel < 1 ? 1 : parallel), m_scratch(std::move(scratch)) {}

  std::vector<CompileOutput> run(const std::vector<CompileJob>& jobs, const ProgressFn& progress) override {
    std::vector<CompileOutput> outputs(jobs.size());
    std::map<pid_t, std::size_t> running;
    std::size_t next = 0, finished = 0;
    while (finished < jobs.size()) {
      while (next < jobs.size() && running.size() < static_cast<std::size_t>(m_parallel)) {
        const pid_t pid = start(jobs[next], result_path(next));
        if (pid < 0) {
          outputs[next].log = "kiln: cannot start a worker process: " + std::string(std::strerror(errno));
          report(++finished, jobs, next, outputs, progress);
        } else {
          running.emplace(pid, next);
        }
        ++next;
      }
      if (running.empty()) continue;
      int status = 0;
      const pid_t pid = waitpid(-1, &status, 0);
      if (pid < 0) {
        if (errno == EINTR) continue;
        break;
      }
      const auto it = running.find(pid);
      if (it == running.end()) continue;
      const std::size_t index = it->second;
      running.erase(it);
      collect(jobs[index], status, result_path(index), outputs[index]);
      report(++finished, jobs, index, outputs, progress);
    }
    return outputs;
  }

private:
  fs::path result_path(std::size_t index) const { return m_scratch / ("job-" + std::to_string(index) + ".out"); }

  static pid_t start(const CompileJob& job, const fs::path& result) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid != 0) return pid;
    // Child: compile, write the result, and leave without running the parent's exit handlers.
    const CompileOutput out = compile_in(job);
    _exit(write_file(result, serialize(out)) ? 0 : 1);
  }

  static void collect(const CompileJob& job, int status, const fs::path& result, CompileOutput& out) {
    const std::string what = job.display_prefix + job.source + " [" + job.target + "]";
    if (WIFSIGNALED(status)) {
      out.log = "kiln: the compiler process for " + what + " died with signal " +
                std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !deserialize(read_file(result), out)) {
      out = CompileOutput{};
      out.log = "kiln: the compiler process for " + what + " failed to report its result";
    }
    std::error_code ignored;
    fs::remove(result, ignored);
  }

  static void report(std::size_t finished, const std::vector<CompileJob>& jobs, std::size_t index,
                     const std::vector<CompileOutput>& outputs, const ProgressFn& progress) {
    if (progress) progress(finished, jobs.size(), jobs[index], outputs[index]);
  }

  int m_parallel;
  fs::path m_scratch;
};

}  // namespace

std::unique_ptr<JobRunner> make_process_runner(int parallel, fs::path scratch_dir) {
  return std::make_unique<ProcessRunner>(parallel, std::move(scratch_dir));
}

std::unique_ptr<JobRunner> make_in_process_runner() { return std::make_unique<InProcessRunner>(); }

}  // namespace kiln::compile
