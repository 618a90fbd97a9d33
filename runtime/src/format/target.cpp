#include "target.hpp"

namespace kiln::format {
namespace {

constexpr std::string_view k_sass_prefix = "sm_";
constexpr std::string_view k_ptx_prefix = "compute_";

}  // namespace

std::string Target::name() const {
  std::string out(kind == TargetKind::ptx ? k_ptx_prefix : k_sass_prefix);
  out += std::to_string(arch);
  if (variant == TargetVariant::arch_specific) {
    out += 'a';
  } else if (variant == TargetVariant::family) {
    out += 'f';
  }
  return out;
}

// Strict on purpose: one spelling per target, so a target string and its parsed form convert
// back and forth exactly (the package stores the string and the reader checks they agree).
// Hence lowercase only, no leading zero ("sm_090"), no sign or space, and exactly 2 or 3 digits.
std::optional<Target> parse_target(std::string_view text) {
  Target target;
  if (text.starts_with(k_sass_prefix)) {
    target.kind = TargetKind::sass;
    text.remove_prefix(k_sass_prefix.size());
  } else if (text.starts_with(k_ptx_prefix)) {
    target.kind = TargetKind::ptx;
    text.remove_prefix(k_ptx_prefix.size());
  } else {
    return std::nullopt;
  }
  if (text.ends_with('a')) {
    target.variant = TargetVariant::arch_specific;
    text.remove_suffix(1);
  } else if (text.ends_with('f')) {
    target.variant = TargetVariant::family;
    text.remove_suffix(1);
  }
  if (text.size() < 2 || text.size() > 3 || text.front() == '0') {
    return std::nullopt;
  }
  unsigned arch = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    arch = arch * 10 + static_cast<unsigned>(c - '0');
  }
  target.arch = static_cast<std::uint16_t>(arch);
  return target;
}

}  // namespace kiln::format
