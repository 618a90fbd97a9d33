// Build progress, ninja-style: "[3/24] sm_90 kernels/reduce.cu" rewritten in place on a terminal,
// nothing when stderr is not one (logs and CI stay clean). Verbose mode prints every line.
#pragma once

#include "compile/compile_job.hpp"

#include <cstddef>

namespace kiln::cli {

class Progress {
public:
  explicit Progress(bool verbose);
  void finished(std::size_t done, std::size_t total, const compile::CompileJob& job, const compile::CompileOutput& out);
  void close();   // ends the in-place line

private:
  bool m_terminal;
  bool m_verbose;
  bool m_line_open = false;
};

}  // namespace kiln::cli
