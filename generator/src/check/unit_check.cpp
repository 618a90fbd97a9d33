#include "check/unit_check.hpp"

#include "format/target.hpp"
#include "options/compiler_options.hpp"
#include "util/diagnostic.hpp"

#include <algorithm>

namespace kiln::check {

CheckOutcome check_unit(const UnitCheck& unit, const NvrtcFactsSource& nvrtc, std::ostream& errors) {
  bool refused = false;
  const auto refuse = [&](const std::string& message) {
    errors << diagnostic(Location{}, "error", message) << "\n";
    refused = true;
  };
  if (!unit.options.empty())
    if (Result<options::CompilerOptions> read = options::interpret(unit.options); !read) refuse(read.error().message);
  std::vector<std::pair<std::string, int>> well_formed;   // name, architecture
  for (const std::string& name : unit.targets) {
    if (const std::optional<format::Target> target = format::parse_target(name))
      well_formed.emplace_back(name, target->arch);
    else
      refuse("unknown target '" + name + "'");
  }
  if (well_formed.empty()) return refused ? CheckOutcome::refused : CheckOutcome::accepted;
  const Result<NvrtcFacts> facts = nvrtc();
  if (!facts) {
    errors << diagnostic(Location{}, "error", facts.error().message) << "\n";
    return refused ? CheckOutcome::refused : CheckOutcome::nvrtc_unknown;
  }
  for (const auto& [name, arch] : well_formed)
    if (std::find(facts->archs.begin(), facts->archs.end(), arch) == facts->archs.end())
      refuse(unsupported_target(name, facts->nvrtc_major, facts->nvrtc_minor, facts->archs));
  return refused ? CheckOutcome::refused : CheckOutcome::accepted;
}

}  // namespace kiln::check
