// Compiling while the scan runs. Most jobs are known before the scan has spoken: nvcc builds what a
// source's own text instantiates (plan/build_plan.cpp gives a direct nvcc job only the names its
// text does not make), so the scan changes a job only where a request, the manifest or the route
// differ from what the text alone suggests. At its start the build forks one process that plans
// every kernel source as if the scan found nothing (plan/text_discovery.hpp) and compiles the
// jobs the cache does not hold into a compile cache in the build's scratch directory. After the
// scan, a planned job whose key matches takes that output; any other compiles as before. A wrong
// guess costs CPU time, never a result: the key covers everything that decides the image.
#pragma once

#include "compile/compile_cache.hpp"
#include "compile/job_runner.hpp"
#include "compile/toolkit.hpp"
#include "manifest/manifest.hpp"
#include "plan/unit_text.hpp"
#include "store/store.hpp"

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <set>
#include <string>

namespace kiln {
class Jobserver;
}

namespace kiln::build {

struct SpeculationSettings {
  std::filesystem::path scratch_dir;     // the build's; the speculation works in a folder of its own there
  std::string display_prefix;
  int jobs = 1;                          // compiles at once, as the build's
  Jobserver* jobserver = nullptr;
  store::Store* cache = nullptr;         // the build's cache: jobs it holds are not compiled again
  compile::CacheContext context;
  plan::ProjectText* project_text = nullptr;   // the build's walk of the project's headers (unit_text.hpp)
  std::set<std::string> unread;                // the sources the scan leaves to the image (scan_scope.hpp)
};

class Speculation {
public:
  // Forks the process that compiles; nothing (an inert speculation) when it cannot, or when
  // KILN_SPECULATE=0.
  static std::unique_ptr<Speculation> start(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                            SpeculationSettings settings);
  ~Speculation();   // stops the process if it still runs

  // Waits for the process (after the scan); its outputs are then readable through runner().
  void finish();
  // Below the build's cached runner: a job the speculation compiled takes its output, as compiled in
  // this build (not a cache hit); any other goes to `inner`. Only after finish().
  std::unique_ptr<compile::JobRunner> runner(compile::JobRunner& inner);
  // How many jobs took the speculation's output.
  std::size_t taken() const { return m_taken; }

private:
  Speculation(std::filesystem::path directory, compile::CacheContext context, pid_t pid);
  std::filesystem::path m_directory;
  std::unique_ptr<store::Store> m_store;
  std::unique_ptr<compile::CompileCache> m_outputs;
  pid_t m_pid = -1;
  std::size_t m_taken = 0;
};

}  // namespace kiln::build
