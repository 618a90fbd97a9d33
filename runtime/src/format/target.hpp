// Target strings ("sm_90a", "sm_100f", "compute_90") parsed into their parts, and back.
#pragma once

#include "layout.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace kiln::format {

struct Target {
  TargetKind kind = TargetKind::sass;
  std::uint16_t arch = 0;                // major * 10 + minor
  TargetVariant variant = TargetVariant::plain;

  int major() const { return arch / 10; }
  int minor() const { return arch % 10; }
  std::string name() const;              // "sm_90a", "compute_100f"
  friend bool operator==(const Target&, const Target&) = default;
  // The order TARGETS is sorted in: kind, then arch, then variant.
  friend auto operator<=>(const Target&, const Target&) = default;
};

// Parses "sm_XY", "sm_XYa", "sm_XYf", "compute_XY[a|f]" (XY: two or three digits, last one the minor).
// Returns nothing for anything else. It does not check that a toolkit supports the architecture.
std::optional<Target> parse_target(std::string_view text);

}  // namespace kiln::format
