// kiln build's scan phase: every kernel source and host source through the scan cache, with cache
// misses scanned in worker processes (-j), and every Python source with one Python run (not cached);
// then each kernel source resolves the other files' runtime requests for its kernel templates (cached
// the same way). The build gets plain ScanResults.
#pragma once

#include "compile/toolkit.hpp"
#include "manifest/manifest.hpp"
#include "plan/discovery.hpp"
#include "plan/finding.hpp"
#include "store/store.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln {
class Jobserver;
}

namespace kiln::build {

struct ScanPhaseSettings {
  store::Store* store = nullptr;              // the scan cache's store (a null store with the cache off)
  std::filesystem::path scratch_dir;          // worker results
  int jobs = 1;                               // 1: scan in this process
  Jobserver* jobserver = nullptr;             // make's, when kiln takes part in it
  std::string display_prefix;                 // how the manifest directory looks from the user's cwd
  std::filesystem::path build_dir;            // <build> in include directories (util/named_roots.hpp)
  std::string python;                         // --python: the interpreter for Python sources, if given
  std::string host_standard;                  // --host-std: host sources' -std; empty: the kernels'
  // Kernel sources (as the manifest names them) to scan; the others count as scanned with nothing
  // found. Unset: all. A shard scans the sources of its own units only (shard/shard_plan.hpp).
  std::function<bool(const std::string&)> scans_kernel_source;
  // The store reaches a remote cache: what worker processes stored locally is read back once here,
  // which sends it on (remote/layered_store.hpp).
  bool publish = false;
  // Called as each file clang parses is done (cache misses only): done, total, the file (relative to
  // the manifest directory); for progress lines.
  std::function<void(std::size_t, std::size_t, const std::string&)> progress;
};

// A finding about one kernel source (as the manifest names it).
struct SourceFinding {
  std::string source;
  plan::Finding finding;
};

struct ScanPhaseOutput {
  std::vector<plan::ScannedFile> kernel_sources;   // one per [[source]], in manifest order
  std::vector<plan::ScannedFile> host_sources;     // C/C++/CUDA host sources, then Python sources
  // The scanner's warnings, and one per file it could not read (what discovery is lost there). A file
  // that does not parse never stops the build: its compiler decides.
  std::vector<plan::Finding> findings;
  // One per kernel source the scan could not read, apart from `findings`: it matters only if the
  // source compiles (a typo fails the scan and the compile alike, and the compiler's error says it).
  std::vector<SourceFinding> unreadable_kernel_sources;
  std::size_t unreadable = 0;                      // files whose scan failed
  std::optional<Error> environment_error;          // no file was at fault: the Python interpreter cannot run
  // A source or a header that is a FIFO, a socket or a device (at that file): no compiler may be left
  // waiting on it, so the build stops.
  std::optional<Error> input_error;
  std::size_t cached = 0;                          // files whose scan came from the cache
  std::size_t scanned = 0;                         // files clang parsed
  std::size_t preambles = 0;                       // precompiled preambles made (preamble_sharing.hpp)
  std::size_t sharing = 0;                         // the sources they were made for
  std::size_t resolved = 0;                        // request resolutions clang parsed (cache misses)
  std::size_t python = 0;                          // Python sources read
};

// Files to scan for requests besides the manifest's, as given (relative to the current directory).
struct ExtraSources {
  std::vector<std::filesystem::path> host;          // --host-source
  std::vector<std::filesystem::path> python;        // --python-source
};

ScanPhaseOutput run_scan_phase(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                               const ExtraSources& extra, const ScanPhaseSettings& settings);

}  // namespace kiln::build
