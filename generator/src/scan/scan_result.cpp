#include "scan/scan_result.hpp"

#include <algorithm>

namespace kiln::scan {

bool ScanResult::ok() const {
  return std::none_of(diagnostics.begin(), diagnostics.end(),
                      [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::error; });
}

}  // namespace kiln::scan
