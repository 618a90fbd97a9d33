// Which of a unit's images a device loads: the rules of cuda-platform-facts.md section 1.7, as a pure
// function so that `kiln inspect --device` and the runtime agree, and tests need no GPU.
#pragma once

#include "format/target.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kiln::select {

struct DeviceProfile {
  std::uint16_t arch = 0;              // compute capability major * 10 + minor: 89, 90, 121
  bool integrated = false;             // CU_DEVICE_ATTRIBUTE_INTEGRATED (Tegra): no cross-minor cubins
  std::uint32_t max_ptx_version = 0;   // the newest PTX ISA the driver JIT accepts (90 = 9.0); 0: none
};

struct Candidate {
  format::Target target;
  std::uint32_t ptx_version = 0;       // for PTX images
};

// Why an image was chosen. Written into logs and inspect output; never renumber.
enum class Rule : int {
  exact_arch_specific = 1,   // sm_XYa on an X.Y device
  exact = 2,                 // sm_XY or sm_XYf on an X.Y device
  lower_minor = 3,           // sm_XZ (Z < Y) on an X.Y desktop device; sm_XZf inside its family
  ptx = 4,                   // PTX the driver compiles for the device
};

struct Choice {
  std::size_t index = 0;     // into the candidates
  Rule rule = Rule::exact;
};

struct NoChoice {
  std::string reason;        // names the device, the targets held, and why each was refused
};

// Picks the best image for `device` among `candidates` (one per target of a unit).
// Order: exact 'a' cubin > exact cubin (plain or 'f') > same major, highest lower minor (not on an
// integrated GPU; an 'f' cubin only inside its family) > the highest compatible PTX whose ISA the
// driver accepts ('a' > 'f' > plain at the same arch). `forced`, if set, allows only that kind.
struct Selection {
  std::optional<Choice> choice;
  NoChoice failure;          // filled when !choice
};
Selection select_image(const DeviceProfile& device, std::span<const Candidate> candidates,
                       std::optional<format::TargetKind> forced_kind = std::nullopt);

// The PTX ISA a driver of `driver_version` (cuDriverGetVersion: 13000 = 13.0) accepts, major * 10 +
// minor: CUDA 13.x -> 9.x, 12.x -> 8.x (12.5 and 12.6 share 8.5, 12.7 -> 8.6, 12.8 -> 8.7, 12.9 -> 8.8).
std::uint32_t max_ptx_version_for_driver(int driver_version);

// A CUDA version as a package's nvrtc.version and `kiln inspect --driver` spell it ("13.0", "12.8": a
// one-digit minor) in cuDriverGetVersion form (13000, 12080); nullopt for anything else.
std::optional<int> parse_cuda_version(std::string_view text);

// A device in the family of an 'f' target: same major, minor at least the target's.
bool in_family(std::uint16_t target_arch, std::uint16_t device_arch);

// "a cubin for sm_90a (exact architecture-specific match)".
std::string describe(const Candidate& candidate, Rule rule);
std::string arch_string(std::uint16_t arch);   // 90 -> "9.0"

}  // namespace kiln::select
