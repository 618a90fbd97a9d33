// kiln build interrupted at random points (SIGTERM, SIGKILL) leaves nothing behind but the old or the
// new package: no scratch directory, no temporary file (after the next build, for SIGKILL, which
// cannot be caught), and no worker process. Labelled "slow": each case builds a fixture several times.
#include "kiln_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

pid_t start_kiln(const std::vector<std::string>& args, const fs::path& cwd) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int null = open("/dev/null", O_WRONLY);
  dup2(null, STDOUT_FILENO);
  dup2(null, STDERR_FILENO);
  if (chdir(cwd.c_str()) != 0) _exit(127);
  std::vector<char*> argv{const_cast<char*>(KILN_EXE)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(KILN_EXE, argv.data());
  _exit(127);
}

// Each running process by its parent, from /proc.
std::multimap<pid_t, pid_t> processes_by_parent() {
  std::multimap<pid_t, pid_t> children;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line) || line.rfind(')') == std::string::npos) continue;
    char state = 0;
    int parent = 0;
    std::sscanf(line.c_str() + line.rfind(')') + 1, " %c %d", &state, &parent);
    children.emplace(parent, std::stoi(name));
  }
  return children;
}

// Every process below `root`.
std::set<pid_t> descendants(pid_t root) {
  const std::multimap<pid_t, pid_t> children = processes_by_parent();
  std::set<pid_t> found;
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(p); it != end; ++it)
      if (found.insert(it->second).second) todo.push_back(it->second);
  }
  return found;
}

// The processes whose parent is `root`.
std::set<pid_t> children(pid_t root) {
  const std::multimap<pid_t, pid_t> all = processes_by_parent();
  std::set<pid_t> found;
  for (auto [it, end] = all.equal_range(root); it != end; ++it) found.insert(it->second);
  return found;
}

// Running, not a zombie.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line) || line.rfind(')') == std::string::npos) return false;
  return line[line.rfind(')') + 2] != 'Z';
}

// Names in `dir` that are neither the package, its depfile, the scan cache nor the project's own.
std::vector<std::string> leftovers(const fs::path& dir) {
  static const std::set<std::string> expected{"kiln.toml", "kernels", "include", "out.kiln", "out.kiln.d",
                                              "out.kiln.scan-cache"};
  std::vector<std::string> found;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    const bool top = entry.path().parent_path() == dir;
    if ((top && !expected.count(name)) || name.find(".tmp-") != std::string::npos) found.push_back(name);
  }
  return found;
}

void interrupt_at(int signal_number, std::chrono::milliseconds delay) {
  SCOPED_TRACE(std::string(strsignal(signal_number)) + " after " + std::to_string(delay.count()) + " ms");
  ScratchDir dir;
  const fs::path p = dir.copy_project("basic");
  const std::vector<std::string> args{"build", "-o", "out.kiln", "-j", "4", "--scan-cache", "out.kiln.scan-cache"};
  const pid_t pid = start_kiln(args, p);
  std::this_thread::sleep_for(delay);
  // Stopped first, so that it forks no worker between the list of its workers and the signal: a
  // worker forked meanwhile would be missed, and one that outlives the list holds the lock on a
  // temporary file the killed build was writing (fork shares it), which the next build then leaves.
  int status = 0;
  kill(pid, SIGSTOP);
  ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  std::set<pid_t> workers;
  if (WIFSTOPPED(status)) {   // else the build had finished already
    workers = descendants(pid);
    kill(pid, signal_number);
    kill(pid, SIGCONT);   // a stopped build runs its SIGTERM or SIGINT handler only once continued
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // SIGTERM and SIGINT: the build kills and waits for its workers before it exits, so none is left.
  // SIGKILL: nothing of the build runs; each worker gets its parent-death signal when its own parent
  // has finished exiting, so a worker's workers go one process teardown later (a compiler's, with
  // its memory, can take longer than the wait above on a loaded machine): they must go, within a bound.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(signal_number == SIGKILL ? 10 : 0);
  for (const pid_t w : workers) {
    while (alive(w) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(alive(w)) << "worker " << w << " outlived kiln";
  }
  if (signal_number == SIGKILL) {
    // Whatever the killed build left, the next build of the same output removes.
    const RunResult r = run_kiln(args, p);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(leftovers(p), std::vector<std::string>{});
  if (fs::exists(p / "out.kiln")) {
    EXPECT_EQ(run_kiln({"verify", "-q", "out.kiln"}, p).exit_code, 0);
  }
}

TEST(BuildInterrupt, TerminatedBuildLeavesNothing) {
  for (const int ms : {150, 500, 1000, 2000}) interrupt_at(SIGTERM, std::chrono::milliseconds(ms));
}

TEST(BuildInterrupt, InterruptedBuildLeavesNothing) { interrupt_at(SIGINT, std::chrono::milliseconds(700)); }

TEST(BuildInterrupt, KilledBuildLeavesNothingAfterTheNextBuild) {
  for (const int ms : {150, 500, 1000, 2000}) interrupt_at(SIGKILL, std::chrono::milliseconds(ms));
}

// kiln's own children (the speculation, the scan's and the compiles' workers) are killed and reaped by
// its handler before it removes the scratch directory they write into, so none is left for init to
// reap: the speculation, which died only by its parent-death signal, went on writing into the
// scratch directory and the scan cache after the build had cleaned up.
TEST(BuildInterrupt, AnInterruptedBuildReapsItsChildrenBeforeItEnds) {
  for (const int ms : {100, 300, 700}) {
    SCOPED_TRACE("SIGINT after " + std::to_string(ms) + " ms");
    ScratchDir dir;
    const fs::path p = dir.copy_project("basic");
    const pid_t pid = start_kiln({"build", "-o", "out.kiln", "-j", "4", "--scan-cache", "out.kiln.scan-cache"}, p);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    const std::set<pid_t> own = children(pid);
    kill(pid, SIGINT);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    for (const pid_t child : own) {
      EXPECT_FALSE(fs::exists("/proc/" + std::to_string(child))) << "child " << child << " outlived kiln";
    }
  }
}

// A concurrent build's scratch directory is live: it must survive another build of the same output.
TEST(BuildInterrupt, LiveScratchOfAnotherBuildIsKept) {
  ScratchDir dir;
  const fs::path p = dir.copy_project("basic");
  const fs::path live = p / (".out.kiln.build-" + std::to_string(getpid()) + "-abcdef");
  const fs::path dead = p / ".out.kiln.build-999999999-abcdef";
  fs::create_directories(live);
  fs::create_directories(dead);
  write_text(p / ".out.kiln.tmp-999999999-abcdef", "half a package");
  ASSERT_EQ(run_kiln({"build", "-o", "out.kiln"}, p).exit_code, 0);
  EXPECT_TRUE(fs::exists(live));
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(p / ".out.kiln.tmp-999999999-abcdef"));
}

}  // namespace
}  // namespace kiln::test
