// Whether the package answers every kernel name the build was asked for: each request to the
// runtime in a scanned file and each manifest `instantiate` entry, exactly as written. A request that
// resolves to nothing is a warning of its own where it is found; this is the one line that says the
// package came out short, so a build of 0 kernels out of 14 asked for never passes unnoticed.
#pragma once

#include "writer/package_writer.hpp"
#include "manifest/manifest.hpp"
#include "plan/discovery.hpp"
#include "util/result.hpp"

#include <string>
#include <vector>

namespace kiln::build {

struct AskedName {
  std::string name;    // as written
  Location where;      // "src/app.cpp", 3, 12: as the user opens it
};

// The kernel names `manifest` and the scanned files ask for, in manifest then file order.
std::vector<AskedName> asked_kernel_names(const manifest::Manifest& manifest,
                                          const std::vector<plan::ScannedFile>& kernel_sources,
                                          const std::vector<plan::ScannedFile>& host_sources,
                                          const std::string& display_prefix);

// Whether the package answers every name asked for; if not, the Error says which it does not: "the
// package holds 3 kernels and answers 12 of the 14 kernel names asked for; not in it: 'a'
// (src/app.cpp:3:12), ...". The build warns with it, or fails with it under --strict.
Status answers_every_name(const std::vector<AskedName>& asked, const format::PackageContents& contents);

}  // namespace kiln::build
