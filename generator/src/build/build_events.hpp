// What a build tells as it goes, for whoever shows it: `kiln build` prints it (cli/), a test records
// it. Every text is whole and already in its final form: a diagnostic in the compilers' format
// ("src/k.cu:3:5: warning: ...") or a line of Kiln's own. The builder decides what is said; the
// listener decides what is shown (-q hides warnings, -v shows details).
#pragma once

#include "compile/compile_job.hpp"

#include <cstddef>
#include <string>

namespace kiln::build {

// Whose a warning is, for the line that counts them at the end of a build (cli/build_command.cpp):
// only the scan's findings are what --strict makes errors.
enum class WarningSource {
  scan,       // the scan's and discovery's findings (--strict fails the build on them)
  compiler,   // a compiler's log of a compile that succeeded
  cache,      // the cache directory or the remote cache
  kiln,       // Kiln's own, about the package or the environment (a kernel name left out, the jobserver)
};

class BuildEvents {
public:
  virtual ~BuildEvents() = default;
  // A warning: a compiler's log of a compile that succeeded, a finding of the scan, one of Kiln's.
  // The build's result lists each one too (BuildResult::warnings, and its source).
  virtual void warning(WarningSource source, const std::string& text) = 0;
  // What stops the build, or stands beside what does, said as it happens: a failed compile's log
  // with the note naming its targets, a finding under --strict. Shown even when warnings are not.
  virtual void error(const std::string& text) = 0;
  // What the build did, for who asks (-v): counts of the scan and compile caches, NVRTC's verdicts,
  // how a source was split into image parts, the remote cache's summary.
  virtual void detail(const std::string& text) = 0;
  // A step that is not a compile ("scan src/a.cu"), `done` of `total`.
  virtual void step(std::size_t done, std::size_t total, const std::string& what) = 0;
  // A compile finished, `done` of `total`. `retried`: it failed, and nvcc compiles the source again
  // (NVRTC rejected it), so the failure is not final.
  virtual void compiled(std::size_t done, std::size_t total, const compile::CompileJob& job,
                        const compile::CompileOutput& out, bool retried) = 0;
  // The steps of a phase are over (a progress line shown in place can go).
  virtual void steps_done() = 0;
};

// Says nothing: for callers that need only the result.
class SilentBuildEvents final : public BuildEvents {
public:
  void warning(WarningSource, const std::string&) override {}
  void error(const std::string&) override {}
  void detail(const std::string&) override {}
  void step(std::size_t, std::size_t, const std::string&) override {}
  void compiled(std::size_t, std::size_t, const compile::CompileJob&, const compile::CompileOutput&, bool) override {}
  void steps_done() override {}
};

}  // namespace kiln::build
