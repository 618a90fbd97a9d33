#include "test_process.hpp"

#include <cstdlib>
#include <stdexcept>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#include <psapi.h>
#else
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#endif

namespace kiln::test {

namespace {

constexpr const char* k_role_variable = "KILN_TEST_CHILD";

}  // namespace

#if defined(_WIN32)

namespace {

// UTF-8 to UTF-16: variables are set as Windows holds them, so a non-ASCII value reads back whole.
std::wstring wide(const std::string& utf8) {
  std::wstring out(utf8.size(), L'\0');
  out.resize(static_cast<std::size_t>(MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()),
                                                          out.data(), static_cast<int>(out.size()))));
  return out;
}

}  // namespace

void set_variable(const char* name, const std::string& value) { _wputenv_s(wide(name).c_str(), wide(value).c_str()); }
long process_id() { return static_cast<long>(GetCurrentProcessId()); }

long peak_memory_kib() {
  PROCESS_MEMORY_COUNTERS counters{};
  counters.cb = sizeof counters;
  if (!K32GetProcessMemoryInfo(GetCurrentProcess(), &counters, sizeof counters)) return 0;
  return static_cast<long>(counters.PeakWorkingSetSize / 1024);
}
void unset_variable(const char* name) { _wputenv_s(wide(name).c_str(), L""); }

std::filesystem::path own_program() {
  std::wstring path(32768, L'\0');
  path.resize(GetModuleFileNameW(nullptr, path.data(), static_cast<DWORD>(path.size())));
  return path;
}

ChildProcess ChildProcess::start(const std::string& test, const std::string& role) {
  set_variable(k_role_variable, role);   // inherited by the child, taken back at once
  std::wstring command = L"\"" + own_program().wstring() + L"\" --gtest_filter=" +
                         std::filesystem::path(test).wstring();
  STARTUPINFOW startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION info{};
  const BOOL started = CreateProcessW(nullptr, command.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr,
                                      &startup, &info);
  unset_variable(k_role_variable);
  if (!started) throw std::runtime_error("CreateProcessW failed for " + test);
  CloseHandle(info.hThread);
  ChildProcess child;
  child.m_pid = static_cast<long>(info.dwProcessId);
  child.m_handle = info.hProcess;
  return child;
}

ChildProcess::~ChildProcess() {
  if (m_handle) CloseHandle(m_handle);
}

int ChildProcess::wait() {
  if (!m_handle) return -1;
  WaitForSingleObject(m_handle, INFINITE);
  DWORD code = 0;
  GetExitCodeProcess(m_handle, &code);
  CloseHandle(m_handle);
  m_handle = nullptr;
  return static_cast<int>(code);
}

void ChildProcess::kill() {
  if (m_handle) TerminateProcess(m_handle, 137);
}

void exit_child(int code) { TerminateProcess(GetCurrentProcess(), static_cast<UINT>(code)); std::abort(); }

std::string freeze_directory(const std::filesystem::path&) { return "no read-only directories on Windows here"; }
void free_directory(const std::filesystem::path&) {}

#else

void set_variable(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }
long process_id() { return static_cast<long>(::getpid()); }

long peak_memory_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}
void unset_variable(const char* name) { ::unsetenv(name); }

std::filesystem::path own_program() { return std::filesystem::read_symlink("/proc/self/exe"); }

ChildProcess ChildProcess::start(const std::string& test, const std::string& role) {
  const std::string program = own_program().string();
  const std::string filter = "--gtest_filter=" + test;
  std::vector<std::string> environment = {std::string(k_role_variable) + "=" + role};
  for (char** e = environ; *e; ++e)
    if (std::string_view(*e).rfind(std::string(k_role_variable) + "=", 0) != 0) environment.emplace_back(*e);
  std::vector<char*> env;
  for (std::string& e : environment) env.push_back(e.data());
  env.push_back(nullptr);
  char* argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>(filter.c_str()), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv, env.data()) != 0) {
    throw std::runtime_error("posix_spawn failed for " + test);
  }
  ChildProcess child;
  child.m_pid = pid;
  return child;
}

ChildProcess::~ChildProcess() = default;

int ChildProcess::wait() {
  if (m_pid <= 0) return -1;
  int status = 0;
  if (waitpid(static_cast<pid_t>(m_pid), &status, 0) != static_cast<pid_t>(m_pid)) return -1;
  m_pid = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void ChildProcess::kill() {
  if (m_pid > 0) ::kill(static_cast<pid_t>(m_pid), SIGKILL);
}

void exit_child(int code) { _exit(code); }

std::string freeze_directory(const std::filesystem::path& directory) {
  std::filesystem::permissions(directory, std::filesystem::perms(0555));
  if (::geteuid() != 0) return {};
  // Root ignores permissions; the immutable attribute stops root too (ext4, xfs, btrfs; not tmpfs).
  const std::string command = "chattr +i '" + directory.string() + "' 2>/dev/null";
  return std::system(command.c_str()) == 0 ? "" : "running as root, and chattr +i fails on " + directory.string();
}

void free_directory(const std::filesystem::path& directory) {
  if (::geteuid() == 0) {
    [[maybe_unused]] const int status = std::system(("chattr -i '" + directory.string() + "' 2>/dev/null").c_str());
  }
  std::error_code ignored;
  std::filesystem::permissions(directory, std::filesystem::perms(0755), ignored);
}

#endif

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : m_pid(other.m_pid), m_handle(other.m_handle) {
  other.m_pid = -1;
  other.m_handle = nullptr;
}

std::string child_role() {
  const char* role = std::getenv(k_role_variable);
  return role ? role : "";
}

}  // namespace kiln::test
