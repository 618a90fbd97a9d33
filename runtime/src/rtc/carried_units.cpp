// TEMPORARY until format 1.3 (carried sources) lands: no package carries anything.
#include "rtc/carried_units.hpp"

namespace kiln::rtc {

std::vector<CarriedUnit> carried_units(const format::PackageReader&) { return {}; }
bool carries_sources(const format::PackageReader&) { return false; }
bool carries_unit(const format::PackageReader&, std::uint32_t) { return false; }
Result<std::string> carried_text(const format::PackageReader&, const CarriedUnit&, std::size_t) {
  return Error{"not carried"};
}

}  // namespace kiln::rtc
