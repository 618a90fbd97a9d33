#include "util/signal_cleanup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace kiln::cleanup {

namespace {

constexpr int k_path_slots = 16;
constexpr int k_child_slots = 1024;   // -j is at most 1024
constexpr std::size_t k_path_max = 4096;

enum SlotState : int { k_free, k_claimed, k_published };

struct PathSlot {
  std::atomic<int> state{k_free};   // published once `path` is complete: the handler reads only those
  char path[k_path_max]{};
};

// Constant-initialized (zeros in .bss), never by code at load: a dynamic initializer would write
// every slot's state, 16 pages, in each process that loads a library linking this file (the loader
// did, 16 page faults at each dlopen).
constinit PathSlot g_paths[k_path_slots];
std::atomic<pid_t> g_children[k_child_slots];
std::atomic<bool> g_installed{false};
char g_tokens[k_child_slots];
std::atomic<int> g_token_count{0};
std::atomic<int> g_token_fd{-1};

struct LinuxDirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

void remove_at(int dir_fd, const char* name, int depth) {
  if (unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT) return;
  const int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  if (depth < 8) {
    // Entries are removed while the directory is read, so read it again until nothing is left.
    alignas(8) char buffer[2048];
    for (bool removed = true; removed;) {
      removed = false;
      lseek(fd, 0, SEEK_SET);
      for (long n; (n = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0;) {
        for (long at = 0; at < n;) {
          const auto* entry = reinterpret_cast<const LinuxDirent64*>(buffer + at);
          at += entry->d_reclen;
          if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
          remove_at(fd, entry->d_name, depth + 1);
          removed = true;
        }
      }
    }
  }
  close(fd);
  unlinkat(dir_fd, name, AT_REMOVEDIR);
}

extern "C" void on_signal(int signal_number) {
  const int saved = errno;
  // Workers are killed, not asked: NVRTC's workers block SIGTERM. They are waited for, so none
  // writes into the scratch directory once it is removed. A temporary file a worker was writing to
  // the scan cache is left to the next build (scratch_names.hpp).
  for (std::atomic<pid_t>& child : g_children)
    if (const pid_t pid = child.load(); pid > 0) kill(pid, SIGKILL);
  for (std::atomic<pid_t>& child : g_children)
    if (const pid_t pid = child.load(); pid > 0) waitpid(pid, nullptr, 0);
  for (PathSlot& slot : g_paths)
    if (slot.state.load() == k_published) remove_tree(slot.path);
  if (const int fd = g_token_fd.load(); fd >= 0)
    for (int n = g_token_count.exchange(0); n > 0;)
      if (write(fd, &g_tokens[n - 1], 1) == 1 || errno != EINTR) --n;
  errno = saved;
  // SA_RESETHAND restored the default action; the signal is blocked until the handler returns, and
  // then ends the process the way it would have without the handler.
  raise(signal_number);
}

}  // namespace

void install_signal_handlers() {
  if (g_installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESETHAND;
  sigfillset(&action.sa_mask);   // one cleanup at a time, whichever signals arrive
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous {};
    // An ignored signal stays ignored (nohup kiln build ...).
    if (sigaction(s, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    sigaction(s, &action, nullptr);
  }
}

ScopedPath::ScopedPath(const std::filesystem::path& path) : m_slot(-1) {
  const std::string text = std::filesystem::absolute(path).string();
  if (text.size() >= k_path_max) return;
  for (int i = 0; i < k_path_slots; ++i) {
    // Claim the slot unseen by the handler, write the path, then publish it.
    int expected = k_free;
    if (!g_paths[i].state.compare_exchange_strong(expected, k_claimed)) continue;
    std::memcpy(g_paths[i].path, text.c_str(), text.size() + 1);
    g_paths[i].state.store(k_published);
    m_slot = i;
    return;
  }
}

ScopedPath::~ScopedPath() {
  if (m_slot < 0) return;
  g_paths[m_slot].state.store(k_free);
}

HeldSignals::HeldSignals() {
  static_assert(sizeof(sigset_t) <= 128, "HeldSignals keeps a sigset_t in 128 bytes");
  sigset_t handled;
  sigemptyset(&handled);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&handled, s);
  m_held = pthread_sigmask(SIG_BLOCK, &handled, reinterpret_cast<sigset_t*>(m_previous)) == 0;
}

HeldSignals::~HeldSignals() { release(); }

void HeldSignals::release() {
  if (!m_held) return;
  m_held = false;
  pthread_sigmask(SIG_SETMASK, reinterpret_cast<const sigset_t*>(m_previous), nullptr);
}

void add_child(pid_t pid) {
  for (std::atomic<pid_t>& child : g_children) {
    pid_t expected = 0;
    if (child.compare_exchange_strong(expected, pid)) return;
  }
}

void remove_child(pid_t pid) {
  for (std::atomic<pid_t>& child : g_children) {
    pid_t expected = pid;
    if (child.compare_exchange_strong(expected, 0)) return;
  }
}

void hold_tokens(int fd, const char* tokens, int count) {
  if (count > k_child_slots) count = k_child_slots;
  // Tokens come and go at the end, so the bytes below the old count stay as they were.
  std::memcpy(g_tokens, tokens, static_cast<std::size_t>(count));
  g_token_fd.store(fd);
  g_token_count.store(count);
}

void forget_after_fork() {
  g_token_count.store(0);
  for (PathSlot& slot : g_paths) slot.state.store(k_free);
  for (std::atomic<pid_t>& child : g_children) child.store(0);
}

void remove_tree(const char* path) { remove_at(AT_FDCWD, path, 0); }

}  // namespace kiln::cleanup
