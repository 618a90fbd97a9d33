// candidates_for: which carried sources may declare a requested kernel.
#include "rtc/carried_units.hpp"

#include "format/names.hpp"

namespace kiln::rtc {

namespace {

// "block_sum<double, 512>" -> ("block_sum", "<double, 512>"); "::ns::k" -> ("ns::k", "").
std::pair<std::string, std::string> split_request(const std::string& normalized) {
  const std::size_t open = normalized.find('<');
  std::string base = normalized.substr(0, open);
  std::string arguments = open == std::string::npos ? std::string() : normalized.substr(open);
  while (!base.empty() && base.back() == ' ') base.pop_back();
  if (base.rfind("::", 0) == 0) base.erase(0, 2);
  return {base, arguments};
}

}  // namespace

std::vector<Candidate> candidates_for(const std::vector<CarriedUnit>& units, std::string_view request) {
  const auto [base, arguments] = split_request(format::normalize_name(request));
  std::vector<Candidate> found;
  if (base.empty()) return found;
  for (const CarriedUnit& unit : units) {
    for (const std::string& declared : unit.kernel_templates) {
      const std::string name = split_request(declared).first;
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
