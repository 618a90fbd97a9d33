#include "plan/finding.hpp"

namespace kiln::plan {

std::string render(const Finding& finding, bool as_error) {
  return (finding.where.empty() ? std::string("kiln") : finding.where) + (as_error ? ": error: " : ": warning: ") +
         finding.message;
}

}  // namespace kiln::plan
