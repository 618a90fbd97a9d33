#include "package/unit_names.hpp"

#include "package/kernel_names.hpp"
#include "package/name_matching.hpp"

#include <optional>
#include <vector>

namespace kiln::package {

namespace {

template <typename Map>
std::vector<SymbolName> symbols_of(const Map& by_lowered) {
  std::vector<SymbolName> symbols;
  for (const auto& [lowered, info] : by_lowered) symbols.push_back({lowered, canonical_kernel_name(lowered)});
  return symbols;
}

ResolvedNames from_nvrtc(const plan::PlannedUnit& unit, const std::map<std::string, std::string>& lowered) {
  ResolvedNames names;
  for (const plan::PlannedName& k : unit.kernels)
    if (auto it = lowered.find(k.expression); it != lowered.end()) names.kernels[k.expression] = it->second;
  for (const plan::PlannedName& v : unit.variables) {
    if (v.managed) {
      if (!v.symbol.empty()) names.variables[v.expression] = v.symbol;
    } else if (auto it = lowered.find("&" + v.expression); it != lowered.end()) {
      names.variables[v.expression] = it->second;
    }
  }
  return names;
}

ResolvedNames from_nvcc(const plan::PlannedUnit& unit, const UnitContents& contents) {
  ResolvedNames names;
  const std::vector<SymbolName> kernels = symbols_of(contents.kernels);
  for (const plan::PlannedName& k : unit.kernels) {
    // clang resolved the spelling to a specialization: its mangling decides, not the spelling.
    std::optional<std::string> symbol = match_mangled(k.mangled_name, kernels);
    if (!symbol) symbol = match_symbol(k.expression, kernels);
    if (!symbol && !k.canonical.empty()) symbol = match_symbol(k.canonical, kernels);
    if (!symbol && !k.symbol_form.empty()) symbol = match_symbol(k.symbol_form, kernels);
    if (symbol) names.kernels[k.expression] = *symbol;
  }
  const std::vector<SymbolName> variables = symbols_of(contents.variables);
  for (const plan::PlannedName& v : unit.variables)
    if (std::optional<std::string> symbol = match_symbol(v.expression, variables)) names.variables[v.expression] = *symbol;
  return names;
}

}  // namespace

ResolvedNames resolve_unit_names(const plan::PlannedUnit& unit, const std::map<std::string, std::string>& nvrtc_lowered,
                                 const UnitContents& contents) {
  if (unit.members.empty())
    return unit.compiler == compile::Compiler::nvcc ? from_nvcc(unit, contents) : from_nvrtc(unit, nvrtc_lowered);
  // A link group: each member's names as its compiler gives them (NVRTC's lowered names, or nvcc's
  // symbols found in the group's images), together. A name NVRTC could not give (a member that
  // nvcc compiled instead, inside the group) is looked for as nvcc's.
  ResolvedNames all;
  for (const plan::PlannedUnit& member : unit.members) {
    ResolvedNames names = member.compiler == compile::Compiler::nvcc ? from_nvcc(member, contents)
                                                                     : from_nvrtc(member, nvrtc_lowered);
    if (member.compiler == compile::Compiler::nvrtc) {
      const ResolvedNames by_symbol = from_nvcc(member, contents);
      names.kernels.insert(by_symbol.kernels.begin(), by_symbol.kernels.end());      // keeps NVRTC's where both
      names.variables.insert(by_symbol.variables.begin(), by_symbol.variables.end());
    }
    all.kernels.insert(names.kernels.begin(), names.kernels.end());
    all.variables.insert(names.variables.begin(), names.variables.end());
  }
  return all;
}

}  // namespace kiln::package
