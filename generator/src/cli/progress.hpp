// Build progress, ninja-style: "[3/24] sm_90 kernels/reduce.cu" rewritten in place on a terminal,
// nothing when stderr is not one (logs and CI stay clean). Verbose mode prints every line.
#pragma once

#include "compile/compile_job.hpp"

#include <cstddef>
#include <set>
#include <string>

namespace kiln::cli {

class Progress {
public:
  // `retried`: sources whose failed compiles nvcc tries again; those are not shown as failures.
  explicit Progress(bool verbose, std::set<std::string> retried = {});
  void finished(std::size_t done, std::size_t total, const compile::CompileJob& job, const compile::CompileOutput& out);
  void close();   // ends the in-place line

private:
  bool m_terminal;
  bool m_verbose;
  std::set<std::string> m_retried;
  bool m_line_open = false;
};

}  // namespace kiln::cli
