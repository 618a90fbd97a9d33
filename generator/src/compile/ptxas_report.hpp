// ptxas's -v report, as it comes back in a compile's log (nvJitLink's info log, nvcc's stderr):
//
//   ptxas info    : Compiling entry function 'spills' for 'sm_90'
//   ptxas info    : Function properties for spills
//       896 bytes stack frame, 712 bytes spill stores, 868 bytes spill loads
//   ptxas info    : Used 24 registers, used 0 barriers, 896 bytes cumulative stack size
//
// (nvcc's stderr; nvJitLink's info log starts the third line "ptxas         .     896 bytes ...").
// Its spill figures are in no cubin, so kiln build's -Xptxas=-v notes read them here; the rest of the
// report the notes say from the cubin, so the printed log leaves the report out (one report, not two).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::compile {

struct Spills {
  std::uint64_t stores = 0;   // bytes
  std::uint64_t loads = 0;
};

// The spills ptxas reported for `kernel` (its symbol, "_Z3fooPf" or "foo") compiled for `target`
// ("sm_90") in `log`; nothing when the log has no such line. nvcc's log covers all of a unit's
// targets, each function's lines under "Compiling entry function '...' for 'sm_XX'"; nvJitLink's
// covers one target and may not name it.
std::optional<Spills> ptxas_spills(std::string_view log, std::string_view target, std::string_view kernel);

// `log` without ptxas's info lines ("ptxas info    : ...") and the indented lines that continue
// them; its warnings and every other line as they were.
std::string without_ptxas_info(std::string_view log);

}  // namespace kiln::compile
