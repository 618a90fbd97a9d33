// Which Python interpreter reads Python sources: --python, else $KILN_PYTHON, else python3 on PATH,
// the way a build tool picks a compiler (CC, then cc on PATH). posix_spawn runs a path, so names
// are looked up on PATH here (compile::find_on_path), and a failed lookup says where it looked.
#include "scan/python_scanner.hpp"

#include <cstdlib>

namespace kiln::scan {

namespace {

std::string path_variable() {
  const char* path = std::getenv("PATH");
  return path ? "PATH=" + std::string(path) : "PATH is not set";
}

Result<PythonInterpreter> locate(const std::string& given, const std::string& origin) {
  PythonInterpreter python{given, given, origin};
  if (given.find('/') != std::string::npos) return python;   // a path: running it says whether it exists
  python.program = compile::find_on_path(given).string();
  if (python.program.empty())
    return Error{"the Python interpreter " + python.describe() + " is not on PATH (" + path_variable() + ")"};
  return python;
}

}  // namespace

std::string PythonInterpreter::describe() const { return "'" + given + "' (" + origin + ")"; }

Result<PythonInterpreter> find_python(const std::string& requested) {
  if (!requested.empty()) return locate(requested, "--python");
  if (const char* env = std::getenv("KILN_PYTHON"); env && *env) return locate(env, "$KILN_PYTHON");
  const std::string found = compile::find_on_path("python3").string();
  if (found.empty())
    return Error{"no Python interpreter: --python is not given, $KILN_PYTHON is not set and python3 is not on PATH (" +
                 path_variable() + ")"};
  return PythonInterpreter{found, "python3", "PATH"};
}

}  // namespace kiln::scan
