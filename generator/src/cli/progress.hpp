// Build progress, ninja-style: "[3/24] sm_90 kernels/reduce.cu" rewritten in place on a terminal,
// nothing when stderr is not one (logs and CI stay clean) or with -q. Verbose mode prints every line.
#pragma once

#include "compile/compile_job.hpp"

#include <cstddef>
#include <string>

namespace kiln::cli {

// How much `kiln build` says, ninja's way: errors and warnings; `quiet`: errors only; `verbose`:
// every step, its options and the summary line.
enum class Verbosity { quiet, normal, verbose };

class Progress {
public:
  explicit Progress(Verbosity verbosity);
  // `retried`: the compile failed and nvcc tries the source again; not shown as a failure.
  void finished(std::size_t done, std::size_t total, const compile::CompileJob& job, const compile::CompileOutput& out,
                bool retried);
  // A step that is not a compile ("[2/9] scan kernels/a.cu"): shown in place on a terminal, a line
  // of its own with -v.
  void step(std::size_t done, std::size_t total, const std::string& what);
  void close();   // ends the in-place line

private:
  void show(const std::string& line, bool keep);

  bool m_terminal;
  bool m_verbose;
  bool m_line_open = false;
};

}  // namespace kiln::cli
