// `kiln build --targets`: targets given on the command line replace the manifest's `targets`, so
// that one kiln.toml can be built for fewer architectures (a test, a developer's own GPU) without
// editing it. CMake's kiln_add_cache(MANIFEST ... TARGETS ...) passes them this way.
#pragma once

#include "manifest/manifest.hpp"
#include "util/result.hpp"

#include <string>
#include <vector>

namespace kiln::build {

// Checks each target as the manifest's `targets` are checked (syntax, each at most once) and
// stores their canonical spelling in `manifest.targets`. An empty list leaves the manifest alone.
Status override_targets(manifest::Manifest& manifest, const std::vector<std::string>& targets);

}  // namespace kiln::build
