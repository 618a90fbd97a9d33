// What tests need of the operating system, the same on Linux and on Windows (under Wine): setting
// variables, and running this test program again as a child process that plays a role (a second
// writer racing this one, a writer to be killed), in place of fork(), which Windows lacks.
#pragma once

#include <filesystem>
#include <string>

namespace kiln::test {

void set_variable(const char* name, const std::string& value);
void unset_variable(const char* name);

long process_id();

// The most memory this process has held at once, in KiB (peak resident set; peak working set).
long peak_memory_kib();

// Makes `directory` one whose entries cannot be removed or added, also by root where the file system
// lets it (POSIX: permissions 0555, and as root the immutable attribute, chattr +i); "" when done,
// else why not (a test skips, saying so). free_directory undoes it.
std::string freeze_directory(const std::filesystem::path& directory);
void free_directory(const std::filesystem::path& directory);

// The role this process was started to play (KILN_TEST_CHILD), or "" in the test run itself.
std::string child_role();

class ChildProcess {
public:
  // This program again, running only `test` ("Suite.Name") with KILN_TEST_CHILD=`role`: the test
  // body checks child_role() first and plays it, then ends with exit_child().
  static ChildProcess start(const std::string& test, const std::string& role);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  int wait();   // its exit code; -1 when it could not be had
  void kill();  // ends it at once (SIGKILL; TerminateProcess)

private:
  ChildProcess() = default;
  long m_pid = -1;
  void* m_handle = nullptr;   // Windows: the process handle
};

// Ends a child at once with `code`, without running the test framework's exit handlers.
[[noreturn]] void exit_child(int code);

// This test program's file.
std::filesystem::path own_program();

}  // namespace kiln::test
