#include "compile/child_process.hpp"

#include "util/signal_cleanup.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>
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

// The environment with `settings`' variables set: "NAME=value" strings that live as long as `settings`
// and the process's environment.
std::vector<char*> environment_with(const std::vector<std::string>& overrides) {
  std::vector<char*> env;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    const std::size_t equals = entry.find('=');
    const std::string_view name = entry.substr(0, equals == std::string_view::npos ? entry.size() : equals + 1);
    bool replaced = false;
    for (const std::string& o : overrides) replaced = replaced || std::string_view(o).substr(0, name.size()) == name;
    if (!replaced) env.push_back(*e);
  }
  for (const std::string& o : overrides) env.push_back(const_cast<char*>(o.c_str()));
  env.push_back(nullptr);
  return env;
}

// Starts argv[0] with stdout and stderr on `out_fd`, in `directory` (or ours, when null) with
// environment `envp`; its pid, or -errno. vfork rather than fork: the
// worker may hold large compiler state, which vfork does not copy (posix_spawn does the same, but
// cannot ask for PR_SET_PDEATHSIG). The child dies with the thread that started it, so a killed
// build leaves no compiler running. Until exec it shares our memory: it makes system calls only.
pid_t spawn(char* const* argv, char* const* envp, const char* directory, int out_fd) {
  sigset_t all, previous;
  sigfillset(&all);
  // No handler may run in the child while it shares our memory; it resets them before unblocking.
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  const pid_t parent = getpid();
  volatile int exec_error = 0;
  const pid_t pid = vfork();
  if (pid == 0) {
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &default_action, nullptr);
    sigprocmask(SIG_SETMASK, &previous, nullptr);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(out_fd, STDERR_FILENO) < 0 || (directory && chdir(directory) != 0)) {
      exec_error = errno;
      _exit(127);
    }
    execve(argv[0], argv, envp);
    exec_error = errno;
    _exit(127);
  }
  const int fork_error = errno;
  // Registered while every signal is still blocked, so the cleanup handler cannot run between the
  // fork and the registration and leave this child running (RegisteredChild unregisters it).
  if (pid > 0 && exec_error == 0) cleanup::add_child(pid);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) return -fork_error;
  if (exec_error != 0) {
    waitpid(pid, nullptr, 0);
    return -exec_error;
  }
  return pid;
}

// The child spawn() registered for SIGINT/SIGTERM cleanup (signal_cleanup.hpp), unregistered once
// it has been reaped.
struct RegisteredChild {
  explicit RegisteredChild(pid_t pid) : m_pid(pid) {}
  ~RegisteredChild() { cleanup::remove_child(m_pid); }
  pid_t m_pid;
};

class SpawnRunner final : public ChildRunner {
public:
  Result<ChildOutput> run(const std::vector<std::string>& argv, const ChildSettings& settings) override {
    if (argv.empty()) return Error{"no program to run"};
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return Error{"cannot create a pipe: " + std::string(std::strerror(errno))};
    Fd read_end(ends[0]), write_end(ends[1]);

    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const std::vector<char*> env = environment_with(settings.environment);
    const std::string directory = settings.directory.string();
    const pid_t pid = spawn(args.data(), env.data(), directory.empty() ? nullptr : directory.c_str(), write_end.get());
    if (pid < 0) {
      return Error{"cannot run " + argv[0] + (directory.empty() ? "" : " in " + directory) + ": " + std::strerror(-pid)};
    }
    const RegisteredChild registered(pid);
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
