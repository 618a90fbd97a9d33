#include "select/select_image.hpp"

#include <charconv>
#include <string>

namespace kiln::select {

namespace {

using format::TargetKind;
using format::TargetVariant;

// Rank of a usable candidate: higher is better. Returns nothing (and says why) for unusable ones.
struct Ranked {
  Rule rule;
  int score;   // orders candidates under the same rule
};

int variant_preference(TargetVariant v) {
  switch (v) {
    case TargetVariant::arch_specific: return 2;
    case TargetVariant::family: return 1;
    case TargetVariant::plain: return 0;
  }
  return 0;
}

// `why` is set to a static reason when the candidate is refused: the ranking pass runs on every first
// kernel load and must not allocate; reasons become text only when nothing fits.
std::optional<Ranked> rank_cubin(const DeviceProfile& device, const format::Target& t, const char*& why) {
  const int device_major = device.arch / 10;
  if (t.major() != device_major) {
    why = "a cubin never runs across major versions";
    return std::nullopt;
  }
  if (t.arch == device.arch) {
    if (t.variant == TargetVariant::arch_specific) return Ranked{Rule::exact_arch_specific, 0};
    return Ranked{Rule::exact, variant_preference(t.variant)};
  }
  if (t.arch > device.arch) {
    why = "a cubin never runs on a lower minor version";
    return std::nullopt;
  }
  if (t.variant == TargetVariant::arch_specific) {
    why = "an 'a' cubin runs only on its exact architecture";
    return std::nullopt;
  }
  if (device.integrated) {
    why = "integrated GPUs run only cubins of their exact architecture";
    return std::nullopt;
  }
  if (t.variant == TargetVariant::family && !in_family(t.arch, device.arch)) {
    why = "the device is not in the target's family";
    return std::nullopt;
  }
  return Ranked{Rule::lower_minor, t.arch * 4 + variant_preference(t.variant)};
}

std::optional<Ranked> rank_ptx(const DeviceProfile& device, const Candidate& c, const char*& why) {
  const format::Target& t = c.target;
  switch (t.variant) {
    case TargetVariant::plain:
      if (t.arch > device.arch) {
        why = "PTX for a newer architecture";
        return std::nullopt;
      }
      break;
    case TargetVariant::family:
      if (!in_family(t.arch, device.arch)) {
        why = "the device is not in the target's family";
        return std::nullopt;
      }
      break;
    case TargetVariant::arch_specific:
      if (t.arch != device.arch) {
        why = "'a' PTX runs only on its exact architecture";
        return std::nullopt;
      }
      break;
  }
  if (c.ptx_version > device.max_ptx_version) {
    why = nullptr;  // the message names versions: see refusal_reason()
    return std::nullopt;
  }
  return Ranked{Rule::ptx, t.arch * 4 + variant_preference(t.variant)};
}

}  // namespace

std::string arch_string(std::uint16_t arch) {
  return std::to_string(arch / 10) + "." + std::to_string(arch % 10);
}

bool in_family(std::uint16_t target_arch, std::uint16_t device_arch) {
  return target_arch / 10 == device_arch / 10 && device_arch % 10 >= target_arch % 10;
}

std::uint32_t max_ptx_version_for_driver(int driver_version) {
  if (driver_version <= 0) return 0;
  const int major = driver_version / 1000;
  const int minor = (driver_version % 1000) / 10;
  if (major >= 13) return static_cast<std::uint32_t>((major - 4) * 10 + minor);
  if (major == 12) {
    // PTX ISA 8.5 shipped with both 12.5 and 12.6, so later 12.x minors are one behind.
    const int isa_minor = minor <= 5 ? minor : minor - 1;
    return static_cast<std::uint32_t>(80 + isa_minor);
  }
  return static_cast<std::uint32_t>(major >= 11 ? 70 : 60);  // older than Kiln's own PTX in any case
}

std::optional<int> parse_cuda_version(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot + 2 != text.size()) return std::nullopt;
  const char minor = text[dot + 1];
  int major = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + dot, major);
  // from_chars takes a leading '-'; 999 keeps major * 1000 an int.
  if (text[0] == '-' || error != std::errc() || end != text.data() + dot || major > 999 || minor < '0' ||
      minor > '9') {
    return std::nullopt;
  }
  return major * 1000 + (minor - '0') * 10;
}

std::string describe(const Candidate& candidate, Rule rule) {
  const std::string name = candidate.target.name();
  switch (rule) {
    case Rule::exact_arch_specific: return "cubin " + name + " (exact architecture-specific match)";
    case Rule::exact: return "cubin " + name + " (exact match)";
    case Rule::lower_minor: return "cubin " + name + " (same major, lower minor: binary compatible)";
    case Rule::ptx: return "PTX " + name + " (compiled by the driver for this device)";
  }
  return name;
}

namespace {

std::optional<Ranked> rank(const DeviceProfile& device, const Candidate& c,
                           std::optional<format::TargetKind> forced_kind, const char*& why) {
  if (forced_kind && c.target.kind != *forced_kind) {
    why = "excluded by the forced target kind";
    return std::nullopt;
  }
  return c.target.kind == TargetKind::sass ? rank_cubin(device, c.target, why) : rank_ptx(device, c, why);
}

std::string refusal_reason(const DeviceProfile& device, const Candidate& c, const char* why) {
  if (why) return why;
  return "PTX ISA " + arch_string(static_cast<std::uint16_t>(c.ptx_version)) + " is newer than the driver accepts (" +
         (device.max_ptx_version ? arch_string(static_cast<std::uint16_t>(device.max_ptx_version))
                                 : std::string("no PTX JIT")) +
         "); update the driver";
}

}  // namespace

Selection select_image(const DeviceProfile& device, std::span<const Candidate> candidates,
                       std::optional<format::TargetKind> forced_kind) {
  Selection result;
  std::optional<std::pair<Ranked, std::size_t>> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const char* why = nullptr;
    const std::optional<Ranked> ranked = rank(device, candidates[i], forced_kind, why);
    if (!ranked) continue;
    // Rules are ordered by value (lower is better); within a rule, the higher score wins.
    const bool better = !best || static_cast<int>(ranked->rule) < static_cast<int>(best->first.rule) ||
                        (ranked->rule == best->first.rule && ranked->score > best->first.score);
    if (better) best = std::make_pair(*ranked, i);
  }
  if (best) {
    result.choice = Choice{best->second, best->first.rule};
    return result;
  }
  std::string held;
  std::string refusals;
  for (const Candidate& c : candidates) {
    held += (held.empty() ? "" : ", ") + c.target.name();
    const char* why = nullptr;
    (void)rank(device, c, forced_kind, why);
    refusals += "\n  " + c.target.name() + ": " + refusal_reason(device, c, why);
  }
  result.failure.reason = "no image for a device of compute capability " + arch_string(device.arch) +
                          (device.integrated ? " (integrated)" : "") + "; the package holds " +
                          (held.empty() ? std::string("no images") : held) + refusals;
  return result;
}

}  // namespace kiln::select
