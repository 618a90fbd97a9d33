// Windows: the temporaries a writer registers are removed when the console's Ctrl-C, Ctrl-Break or
// close arrives (SetConsoleCtrlHandler), as the POSIX handler does on SIGINT/SIGTERM/SIGHUP. The
// generator's child processes and job tokens are POSIX-only (it is not built for Windows): those
// functions keep nothing here.
#include "util/signal_cleanup.hpp"

#include "platform/text.hpp"

#include <windows.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace kiln::cleanup {

namespace {

constexpr int k_path_slots = 16;

enum SlotState : int { k_free, k_claimed, k_published };

struct PathSlot {
  std::atomic<int> state{k_free};   // the handler reads only published paths
  std::wstring path;
};

PathSlot g_paths[k_path_slots];
std::atomic<bool> g_installed{false};

BOOL WINAPI on_console_event(DWORD) {
  // Runs on a thread of its own while the process goes on: the registered files are removed and the
  // default handler (the next one) ends the process.
  for (PathSlot& slot : g_paths)
    if (slot.state.load() == k_published) DeleteFileW(slot.path.c_str());
  return FALSE;
}

}  // namespace

void install_signal_handlers() {
  if (g_installed.exchange(true)) return;
  SetConsoleCtrlHandler(on_console_event, TRUE);
}

ScopedPath::ScopedPath(const std::filesystem::path& path) : m_slot(-1) {
  for (int i = 0; i < k_path_slots; ++i) {
    // Claim the slot unseen by the handler, write the path, then publish it.
    int expected = k_free;
    if (!g_paths[i].state.compare_exchange_strong(expected, k_claimed)) continue;
    g_paths[i].path = platform::long_path(path);
    g_paths[i].state.store(k_published);
    m_slot = i;
    return;
  }
}

ScopedPath::~ScopedPath() {
  if (m_slot < 0) return;
  g_paths[m_slot].state.store(k_claimed);   // unseen by the handler while the path is cleared
  g_paths[m_slot].path.clear();
  g_paths[m_slot].state.store(k_free);
}

HeldSignals::HeldSignals() : m_previous{} {}
HeldSignals::~HeldSignals() = default;
void HeldSignals::release() {}

void add_child(pid_t) {}
void remove_child(pid_t) {}
void hold_tokens(int, const char*, int) {}
void forget_after_fork() {}

void remove_tree(const char* path) {
  std::error_code ignored;
  std::filesystem::remove_all(platform::path_of_utf8(path), ignored);
}

}  // namespace kiln::cleanup
