// Runs a program as a child process and collects what it prints, for compilers that are programs
// rather than libraries (nvcc). An interface, so tests can stand in for the real program.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace kiln::compile {

struct ChildOutput {
  int exit_code = 0;         // 128 + signal number when the child was killed
  std::string output;        // stdout and stderr, interleaved as the child wrote them
};

// Where a child runs: the current directory and environment unless these say otherwise.
struct ChildSettings {
  std::filesystem::path directory;             // empty: the current directory
  std::vector<std::string> environment;        // "NAME=value": set (replacing the inherited value)
};

class ChildRunner {
public:
  virtual ~ChildRunner() = default;
  // argv[0] is the program's path (no PATH lookup: find_on_path below does that). Each argument
  // reaches the program as it is: no shell sees it. Fails only when the child cannot be started
  // (or cannot enter `settings.directory`).
  virtual Result<ChildOutput> run(const std::vector<std::string>& argv, const ChildSettings& settings) = 0;
  Result<ChildOutput> run(const std::vector<std::string>& argv) { return run(argv, ChildSettings{}); }
};

std::unique_ptr<ChildRunner> make_child_runner();

// A program's path from its name, as the shell finds it: the first executable regular file `name`
// in $PATH's directories (an empty entry is the current directory), or an empty path.
std::filesystem::path find_on_path(const std::string& name);

}  // namespace kiln::compile
