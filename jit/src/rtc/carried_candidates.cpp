// candidates_for: which carried sources may declare a requested kernel.
#include "rtc/carried_units.hpp"

#include "format/names.hpp"

namespace kiln::rtc {

std::vector<Candidate> candidates_for(const std::vector<CarriedUnit>& units, std::string_view request) {
  const auto [base, arguments] = format::split_template_name(format::normalize_name(request));
  std::vector<Candidate> found;
  if (base.empty()) return found;
  for (const CarriedUnit& unit : units) {
    for (const std::string& declared : unit.kernel_templates) {
      const std::string name = format::split_template_name(declared).base;
      const bool same = name == base;
      // An unqualified request for a kernel in a namespace: NVRTC needs the qualified expression.
      const bool qualifies = name.size() > base.size() + 2 &&
                             name.compare(name.size() - base.size() - 2, std::string::npos, "::" + base) == 0;
      if (same || qualifies) {
        found.push_back(Candidate{&unit, name + arguments});
        break;
      }
    }
  }
  return found;
}

}  // namespace kiln::rtc
