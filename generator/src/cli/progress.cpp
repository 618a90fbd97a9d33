#include "cli/progress.hpp"

#include "util/printable.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace kiln::cli {

Progress::Progress(Verbosity verbosity)
    : m_terminal(verbosity != Verbosity::quiet && isatty(STDERR_FILENO) == 1), m_verbose(verbosity == Verbosity::verbose) {}

void Progress::step(std::size_t done, std::size_t total, const std::string& what) {
  const std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + printable(what, NewLines::escape);
  if (m_verbose) {
    std::fprintf(stderr, "%s\n", line.c_str());
    return;
  }
  if (m_terminal) show(line, false);
}

void Progress::show(const std::string& line, bool keep) {
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  m_line_open = true;
  if (keep) {
    std::fputc('\n', stderr);
    m_line_open = false;
  }
  std::fflush(stderr);
}

void Progress::finished(std::size_t done, std::size_t total, const compile::CompileJob& job,
                        const compile::CompileOutput& out, bool retried) {
  if (!m_terminal && !m_verbose) return;
  const bool failed = !out.ok && !retried;
  // Written with fprintf, not through std::cerr's filter (color.hpp): names are escaped here.
  const std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + job.target + " " +
                           printable(job.display_prefix + job.source, NewLines::escape) +
                           (retried ? " (NVRTC rejected it: nvcc follows)" : failed ? " FAILED" : "");
  if (m_verbose) {
    const bool nvcc = job.compiler == compile::Compiler::nvcc;
    std::string options;
    for (const std::string& o : nvcc ? job.nvcc_options : job.nvrtc_options) options += " " + printable(o, NewLines::escape);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f s", out.seconds);
    // A step the cache answered says so: its time is the lookup's, not a compile's.
    const char* when = out.compiled_early ? "while the scan ran" : out.from_cache ? "cached" : seconds;
    std::fprintf(stderr, "%s (%s%s)\n  %s:%s\n", line.c_str(), when,
                 out.used_pch ? ", shared PCH" : "", nvcc ? "nvcc" : "nvrtc", options.c_str());
    if (!job.link_options.empty()) {
      std::string link;
      for (const std::string& o : job.link_options) link += " " + printable(o, NewLines::escape);
      std::fprintf(stderr, "  nvjitlink:%s\n", link.c_str());
    }
    return;
  }
  // Rewrite the line in place; a failed compile's line stays so its log follows it.
  show(line, failed);
}

void Progress::close() {
  // The finished line goes: silence after success, as ninja leaves it.
  if (m_line_open) std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  m_line_open = false;
}

}  // namespace kiln::cli
