// The outcome of a core operation: a kiln_status and the sentence the C ABI hands out as the last
// error. The core returns these instead of throwing, so the ABI layer only has to record them.
#pragma once

#include "kiln/kiln.h"
#include "util/result.hpp"  // KILN_TRY

#include <string>
#include <utility>

namespace kiln::core {

struct Status {
  kiln_status code = KILN_STATUS_SUCCESS;
  std::string message;  // empty on success; otherwise names the package, kernel, device or image

  bool ok() const { return code == KILN_STATUS_SUCCESS; }
  Status&& error() && { return std::move(*this); }   // for KILN_TRY (util/result.hpp)
};

inline Status fail(kiln_status code, std::string message) { return Status{code, std::move(message)}; }

}  // namespace kiln::core
