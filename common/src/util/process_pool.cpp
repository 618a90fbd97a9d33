#include "util/process_pool.hpp"

#include "util/file_io.hpp"
#include "util/jobserver.hpp"
#include "util/signal_cleanup.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <system_error>

namespace kiln {

namespace fs = std::filesystem;

namespace {

fs::path result_path(const ProcessPoolSettings& settings, std::size_t index) {
  return settings.scratch_dir / (settings.result_prefix + std::to_string(index) + ".out");
}

// A plain write: the file lives only until the parent reads it, so it needs no fsync or rename.
bool write_result(const fs::path& path, const std::vector<std::byte>& bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return false;
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  return std::fclose(file) == 0 && written;
}

pid_t start(std::size_t index, const fs::path& result, const std::function<std::vector<std::byte>(std::size_t)>& work) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = getpid();
  // The cleanup's signals are held until the child is registered, so the handler cannot run between
  // the fork and the registration and miss it.
  cleanup::HeldSignals held;
  const pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0) cleanup::add_child(pid);
    return pid;
  }
  // Child: die with the parent, even by SIGKILL; if it is already gone, the signal will never come.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  cleanup::forget_after_fork();
  held.release();
  // Work, write the result, and leave without running the parent's exit handlers.
  const std::vector<std::byte> bytes = work(index);
  _exit(write_result(result, bytes) ? 0 : 1);
}

WorkerResult collect(int status, const fs::path& result) {
  WorkerResult out;
  if (WIFSIGNALED(status)) {
    out.failure = "died with signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    out.failure = "failed to report its result";
  } else if (Result<std::vector<std::byte>> bytes = read_binary_file(result)) {
    out.bytes = std::move(*bytes);
  } else {
    out.failure = "failed to report its result";
  }
  std::error_code ignored;
  fs::remove(result, ignored);
  return out;
}

}  // namespace

void run_in_processes(std::size_t count, const ProcessPoolSettings& settings,
                      const std::function<std::vector<std::byte>(std::size_t)>& work,
                      const std::function<void(std::size_t, WorkerResult)>& finished) {
  const std::size_t parallel = settings.parallel < 1 ? 1 : static_cast<std::size_t>(settings.parallel);
  Jobserver* const jobserver = settings.jobserver;
  std::map<pid_t, std::size_t> running;
  // kiln's own token runs one worker; each further one holds a token from the jobserver.
  const auto give_back = [&] {
    if (!jobserver) return;
    const int needed = running.empty() ? 0 : static_cast<int>(running.size()) - 1;
    while (jobserver->held() > needed) jobserver->release();
  };
  struct Guard {
    Jobserver* jobserver;
    ~Guard() {
      if (jobserver)
        while (jobserver->held() > 0) jobserver->release();
    }
  } guard{jobserver};
  std::size_t next = 0, done = 0;
  while (done < count) {
    bool starved = false;   // more could run, but the jobserver has no token now
    while (next < count && running.size() < parallel) {
      if (jobserver && !running.empty() && !jobserver->try_acquire()) {
        starved = true;
        break;
      }
      const pid_t pid = start(next, result_path(settings, next), work);
      if (pid < 0) {
        give_back();
        finished(next, {std::nullopt, "could not start: " + std::string(std::strerror(errno))});
        ++done;
      } else {
        running.emplace(pid, next);
      }
      ++next;
    }
    if (running.empty()) continue;
    int status = 0;
    // Starved, wait for a worker to end or a token to come, whichever is first.
    const pid_t pid = waitpid(-1, &status, starved ? WNOHANG : 0);
    if (pid == 0) {
      jobserver->wait(50);
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    // Any child reaped here is gone from the cleanup's list, one of the pool's or another (the build's
    // speculation): the handler must never signal a pid the system may have given to someone else.
    cleanup::remove_child(pid);
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t index = it->second;
    running.erase(it);
    give_back();
    ++done;
    finished(index, collect(status, result_path(settings, index)));
  }
}

}  // namespace kiln
