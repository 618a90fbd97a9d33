// kiln build's scan phase: every kernel source and host source through the scan cache, with cache
// misses scanned in worker processes (-j), then each kernel source resolves the other files' runtime
// requests for its kernel templates (cached the same way). The build gets plain ScanResults.
#pragma once

#include "compile/toolkit.hpp"
#include "manifest/manifest.hpp"
#include "plan/discovery.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::cli {

struct ScanPhaseSettings {
  std::filesystem::path cache_dir;
  std::filesystem::path scratch_dir;          // worker results
  int jobs = 1;                               // 1: scan in this process
  std::string display_prefix;                 // how the manifest directory looks from the user's cwd
};

struct ScanPhaseOutput {
  std::vector<plan::ScannedFile> kernel_sources;   // one per [[source]], in manifest order
  std::vector<plan::ScannedFile> host_sources;
  std::vector<std::string> messages;               // the scanner's diagnostics: "file:line:col: warning: ..."
  bool failed = false;                             // a file did not parse (messages say why)
  std::size_t cached = 0;                          // files whose scan came from the cache
  std::size_t scanned = 0;                         // files clang parsed
  std::size_t resolved = 0;                        // request resolutions clang parsed (cache misses)
};

// `extra_host_sources`: --host-source paths as given (relative to the current directory).
ScanPhaseOutput run_scan_phase(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                               const std::vector<std::filesystem::path>& extra_host_sources,
                               const ScanPhaseSettings& settings);

}  // namespace kiln::cli
