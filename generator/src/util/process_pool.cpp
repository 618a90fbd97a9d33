#include "util/process_pool.hpp"

#include "util/file_io.hpp"
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
  const pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0) cleanup::add_child(pid);
    return pid;
  }
  // Child: die with the parent, even by SIGKILL; if it is already gone, the signal will never come.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
  cleanup::forget_after_fork();
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
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0, done = 0;
  while (done < count) {
    while (next < count && running.size() < parallel) {
      const pid_t pid = start(next, result_path(settings, next), work);
      if (pid < 0) {
        finished(next, {std::nullopt, "could not start: " + std::string(std::strerror(errno))});
        ++done;
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
    cleanup::remove_child(pid);
    ++done;
    finished(index, collect(status, result_path(settings, index)));
  }
}

}  // namespace kiln
