// The symbol each name a unit was asked for resolves to. For NVRTC units, NVRTC said so itself
// (nvrtcGetLoweredName; a __managed__ variable by the symbol the plan kept). For nvcc units, the
// images' symbols are demangled and matched to the expressions (name_matching.hpp).
#pragma once

#include "package/unit_kernels.hpp"
#include "plan/planned_unit.hpp"

#include <map>
#include <string>

namespace kiln::package {

struct ResolvedNames {
  std::map<std::string, std::string> kernels;     // expression -> lowered, for names that resolved
  std::map<std::string, std::string> variables;   // variable name -> lowered
};

// `nvrtc_lowered`: expression (variables as "&name") -> lowered, from the unit's compile outputs.
ResolvedNames resolve_unit_names(const plan::PlannedUnit& unit,
                                 const std::map<std::string, std::string>& nvrtc_lowered,
                                 const UnitContents& contents);

}  // namespace kiln::package
