// What the scan and discovery have to say that is not a compile error: a source the scanner could
// not read (its discoveries are lost), a request that names nothing, a template nothing
// instantiates. They are warnings; `kiln build --strict` makes each one an error.
#pragma once

#include "util/result.hpp"

#include <string>
#include <string_view>

namespace kiln::plan {

struct Finding {
  Location where;         // as the user sees it (shown_at): "kernels/a.cu", 12, 5; empty: the build itself
  std::string message;    // without the severity
};

// "kernels/a.cu:12:5: warning: ..." (or "error:" when `as_error`), through util/diagnostic.hpp.
std::string render(const Finding& finding, bool as_error);

// `location` as the user can open it from where they ran kiln: a relative file behind the display
// prefix; absolute files and clang's "<built-in>"-like names as they are.
Location shown_at(Location location, std::string_view display_prefix);

}  // namespace kiln::plan
