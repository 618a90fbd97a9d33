#include "build/target_override.hpp"

#include "format/target.hpp"
#include "manifest/checks.hpp"

#include <algorithm>
#include <optional>

namespace kiln::build {

Status override_targets(manifest::Manifest& manifest, const std::vector<std::string>& targets) {
  if (targets.empty()) return Ok{};
  std::vector<std::string> canonical;
  for (const std::string& text : targets) {
    const std::optional<format::Target> target = format::parse_target(text);
    if (!target) {
      return Error{"invalid target '" + text + "' in --targets" + manifest::detail::did_you_mean_target(text) +
                   ": expected sm_XY, sm_XYa, sm_XYf, compute_XY, "
                   "compute_XYa or compute_XYf (XY: the compute capability without the dot, e.g. sm_90a)"};
    }
    const std::string name = target->name();
    if (std::find(canonical.begin(), canonical.end(), name) != canonical.end()) {
      return Error{"target '" + text + "' is given twice in --targets"};
    }
    canonical.push_back(name);
  }
  manifest.targets = std::move(canonical);
  manifest.target_positions.clear();   // errors about them name --targets, not the manifest
  return Ok{};
}

}  // namespace kiln::build
