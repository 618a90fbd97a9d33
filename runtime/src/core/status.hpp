// The outcome of a core operation: a kiln_status and the sentence the C ABI hands out as the last
// error. The core returns these instead of throwing, so the ABI layer only has to record them.
#pragma once

#include "kiln/kiln.h"

#include <string>
#include <utility>

namespace kiln::core {

struct Status {
  kiln_status code = KILN_STATUS_SUCCESS;
  std::string message;  // empty on success; otherwise names the package, kernel, device or image

  bool ok() const { return code == KILN_STATUS_SUCCESS; }
};

inline Status fail(kiln_status code, std::string message) { return Status{code, std::move(message)}; }

// Propagates a failure: `KILN_TRY(step());` returns the Status of `step` unless it succeeded.
#define KILN_TRY(expr)                        \
  do {                                        \
    ::kiln::core::Status kiln_try_s_ = (expr); \
    if (!kiln_try_s_.ok()) return kiln_try_s_; \
  } while (false)

}  // namespace kiln::core
