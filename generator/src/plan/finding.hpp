// What the scan and discovery have to say that is not a compile error: a source the scanner could
// not read (its discoveries are lost), a request that names nothing, a template nothing
// instantiates. They are warnings; `kiln build --strict` makes each one an error.
#pragma once

#include <string>
#include <vector>

namespace kiln::plan {

struct Finding {
  std::string where;      // as the user sees it: "kernels/a.cu:12:5", "kernels/a.cu"
  std::string message;    // without the severity
};

// "kernels/a.cu:12:5: warning: ..." (or "error:" when `as_error`).
std::string render(const Finding& finding, bool as_error);

}  // namespace kiln::plan
