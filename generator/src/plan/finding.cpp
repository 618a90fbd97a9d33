#include "plan/finding.hpp"

#include "util/diagnostic.hpp"

namespace kiln::plan {

std::string render(const Finding& finding, bool as_error) {
  return diagnostic(finding.where, as_error ? "error" : "warning", finding.message);
}

Location shown_at(Location location, std::string_view display_prefix) {
  std::string& file = location.file;
  if (!file.empty() && file.front() != '/' && file.front() != '<') file = std::string(display_prefix) + file;
  return location;
}

}  // namespace kiln::plan
