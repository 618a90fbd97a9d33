// The build's discovery: every source through the scan phase (scan_phase.hpp), what the scanner
// and discovery have to say told as warnings (as errors that stop the build with --strict), and what
// the units must build. Also what the package is checked against afterwards: the kernel names the
// build was asked for, and the host and Python sources (and their project headers) that the depfile
// lists because a request added there changes the package.
#pragma once

#include "build/build_events.hpp"
#include "build/builder.hpp"
#include "build/request_coverage.hpp"
#include "build/scan_phase.hpp"
#include "compile/toolkit.hpp"
#include "manifest/manifest.hpp"
#include "plan/discovery.hpp"

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace kiln::build {

struct DiscoveryPhaseSettings {
  ScanPhaseSettings scan;                  // its progress is set here, from the events
  ExtraSources extra;
  std::set<std::string> unread;            // kernel sources left to their compiler's image (scan_scope.hpp)
  plan::ProjectText* project_text = nullptr;   // the walk that chose them, for discovery to read again
  bool strict = false;
};

struct DiscoveredBuild {
  BuildFailure failure = BuildFailure::none;
  Error error;                             // why, when it failed
  plan::Discovery discovery;
  std::vector<AskedName> asked;            // kernel names the manifest and scanned files ask for
  std::vector<std::filesystem::path> request_inputs;   // host and Python sources and their headers, absolute
  // Without --strict, the warnings for kernel sources the scan could not read: the build says each
  // one after the compiles, and only if its source compiled (else the compiler's errors say it all).
  std::vector<SourceFinding> unreadable_kernel_sources;
};

DiscoveredBuild discover_sources(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                                 const DiscoveryPhaseSettings& settings, BuildEvents& events);

}  // namespace kiln::build
