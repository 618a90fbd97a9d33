// Runtime requests in Python sources: the kernel names a package's Python code asks the Kiln binding
// for as constant strings (pkg.kernel("scale<float, 4>"), also .image, .cupy_kernel,
// .cuda_core_kernel, and .global_address for variables). Python's own `ast` module reads them: an
// embedded script (python_requests.py) runs in a Python interpreter, one child process for all the
// files, and its findings come back as ScanResults holding requests and diagnostics only, which the
// build resolves exactly as it does C++ host sources' requests.
#pragma once

#include "compile/child_process.hpp"
#include "scan/scan_result.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::scan {

struct PythonInterpreter {
  std::string program;       // the path to run (a bare name is looked up on PATH)
  std::string given;         // as the user gave it: "python3.12", "/usr/bin/python3"
  std::string origin;        // where it came from: "--python", "$KILN_PYTHON", "PATH"
  std::string describe() const;   // "'/usr/bin/python3' (--python)"
};

// The interpreter to run: `requested` (--python) when not empty, else $KILN_PYTHON when set, else
// python3 on PATH. A name without a '/' is looked up on PATH. The error says what was tried.
Result<PythonInterpreter> find_python(const std::string& requested);

struct PythonSource {
  std::string file;                      // as locations spell it: relative to the manifest directory, or as given
  std::filesystem::path path;            // where to read it
};

// Scans every source with one run of `python`. Each result holds the file's constant requests and a
// warning for each request whose name is not a constant string, or, when the file cannot be read or
// does not parse, an error (file:line:col and Python's message) and nothing else. The Error is for an
// interpreter that cannot be run or does not answer; it names the interpreter and the files.
Result<std::vector<ScanResult>> scan_python_sources(const std::vector<PythonSource>& sources,
                                                    const PythonInterpreter& python, compile::ChildRunner& runner);

// find_python, then scan_python_sources in a child process.
Result<std::vector<ScanResult>> scan_python_sources(const std::vector<PythonSource>& sources,
                                                    const std::string& requested_python);

// python_requests.py as embedded when kiln was built.
std::string_view python_requests_script();

}  // namespace kiln::scan
