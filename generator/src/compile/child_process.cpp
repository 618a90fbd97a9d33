#include "compile/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <system_error>

extern char** environ;

namespace kiln::compile {

namespace {

// Closes a descriptor once, whichever way the function leaves.
class Fd {
public:
  explicit Fd(int fd = -1) : m_fd(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return m_fd; }
  void reset() {
    if (m_fd >= 0) close(m_fd);
    m_fd = -1;
  }

private:
  int m_fd;
};

class SpawnRunner final : public ChildRunner {
public:
  Result<ChildOutput> run(const std::vector<std::string>& argv) override {
    if (argv.empty()) return Error{"no program to run"};
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return Error{"cannot create a pipe: " + std::string(std::strerror(errno))};
    Fd read_end(ends[0]), write_end(ends[1]);

    // posix_spawn rather than fork: the worker may hold large compiler state; vfork-like spawning
    // does not copy it. Both output streams go to one pipe so messages keep their order.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) return Error{"cannot run " + argv[0] + ": " + std::strerror(spawned)};
    write_end.reset();  // the child holds its own copy; EOF comes when it exits

    ChildOutput out;
    char buffer[65536];
    for (;;) {
      const ssize_t n = read(read_end.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.output.append(buffer, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) return Error{"cannot wait for " + argv[0] + ": " + std::strerror(errno)};
    }
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return out;
  }
};

}  // namespace

std::unique_ptr<ChildRunner> make_child_runner() { return std::make_unique<SpawnRunner>(); }

std::filesystem::path find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace kiln::compile
