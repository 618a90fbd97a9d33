// What a build leaves behind when it is interrupted: its scratch directory and temporary files are
// removed and its worker processes ended on SIGINT, SIGTERM and SIGHUP, after which the signal takes
// its default action (the exit status still says which signal ended kiln). SIGKILL cannot be caught:
// workers die with their parent through PR_SET_PDEATHSIG, and the next build of the same output
// removes what was left (stale_scratch.hpp).
//
// The handler only makes system calls (kill, waitpid, openat, getdents64, unlinkat), so it is safe to run
// whatever the interrupted code was doing. Paths and pids live in fixed slots for the same reason.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace kiln::cleanup {

// Installs the handlers (once; later calls do nothing).
void install_signal_handlers();

// A path (a file, or a directory removed with its contents) to remove if a signal ends the process,
// while this object lives. Registering more paths than there are slots leaves the rest unregistered.
class ScopedPath {
public:
  explicit ScopedPath(const std::filesystem::path& path);
  ~ScopedPath();
  ScopedPath(const ScopedPath&) = delete;
  ScopedPath& operator=(const ScopedPath&) = delete;

private:
  int m_slot;
};

// A child process to kill with SIGKILL, and wait for, before the paths are removed. Whoever reaps a
// child removes it at once, so the handler never signals a pid the system may have given to another.
void add_child(pid_t pid);
void remove_child(pid_t pid);

// Holds SIGINT, SIGTERM and SIGHUP (the handler's signals) blocked in the calling thread while it
// lives, so that the handler cannot run in this thread between forking a child and registering it
// with add_child; one that arrives meanwhile is handled when this ends. (Another thread that leaves
// them unblocked may still take the signal in that window.) The forked child calls release() to take
// its signals back.
class HeldSignals {
public:
  HeldSignals();
  ~HeldSignals();
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
  // Restores the mask from before: in a forked child, before it works or execs.
  void release();

private:
  alignas(8) unsigned char m_previous[128];   // the previous sigset_t (POSIX); unused on Windows
  bool m_held = false;
};

// Jobserver tokens (util/jobserver.hpp) this process holds, written back to `fd` once the workers
// are dead, so a make that goes on after kiln is killed keeps its job slots. Called again whenever
// the tokens change; at most 1024 are kept.
void hold_tokens(int fd, const char* tokens, int count);

// In a forked child: forget the parent's paths, children and tokens, which are not the child's to remove.
void forget_after_fork();

// Removes `path` and, for a directory, everything in it, using system calls only.
void remove_tree(const char* path);

}  // namespace kiln::cleanup
