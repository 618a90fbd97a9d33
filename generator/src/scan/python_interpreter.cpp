// Which Python interpreter reads Python sources: --python, else $KILN_PYTHON, else python3 on PATH,
// the way a build tool picks a compiler (CC, then cc on PATH). posix_spawn runs a path, so names
// are looked up on PATH here, and a failed lookup says where it looked.
#include "scan/python_scanner.hpp"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <system_error>

namespace kiln::scan {

namespace {

namespace fs = std::filesystem;

// The first executable regular file `name` in PATH's directories (an empty entry is the current
// directory, as for the shell), or nothing.
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

std::string path_variable() {
  const char* path = std::getenv("PATH");
  return path ? "PATH=" + std::string(path) : "PATH is not set";
}

Result<PythonInterpreter> locate(const std::string& given, const std::string& origin) {
  PythonInterpreter python{given, given, origin};
  if (given.find('/') != std::string::npos) return python;   // a path: running it says whether it exists
  python.program = on_path(given);
  if (python.program.empty())
    return Error{"the Python interpreter " + python.describe() + " is not on PATH (" + path_variable() + ")"};
  return python;
}

}  // namespace

std::string PythonInterpreter::describe() const { return "'" + given + "' (" + origin + ")"; }

Result<PythonInterpreter> find_python(const std::string& requested) {
  if (!requested.empty()) return locate(requested, "--python");
  if (const char* env = std::getenv("KILN_PYTHON"); env && *env) return locate(env, "$KILN_PYTHON");
  const std::string found = on_path("python3");
  if (found.empty())
    return Error{"no Python interpreter: --python is not given, $KILN_PYTHON is not set and python3 is not on PATH (" +
                 path_variable() + ")"};
  return PythonInterpreter{found, "python3", "PATH"};
}

}  // namespace kiln::scan
