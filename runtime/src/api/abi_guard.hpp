// What every C entry point shares: handles cast to the core objects behind them, and a guard that
// runs a body, records a failure as the thread's (and the package's) last error, and turns any
// exception into a status, since nothing may unwind across the C ABI.
#pragma once

#include "core/kernel.hpp"
#include "core/package.hpp"
#include "util/result.hpp"
#include "kiln/kiln.h"

#include <string>

namespace kiln::api {

// kiln_package and kiln_kernel are never defined: their pointers are the core objects themselves.
inline core::Package* from_handle(kiln_package* p) { return reinterpret_cast<core::Package*>(p); }
inline const core::Package* from_handle(const kiln_package* p) { return reinterpret_cast<const core::Package*>(p); }
inline kiln_package* to_handle(core::Package* p) { return reinterpret_cast<kiln_package*>(p); }
inline core::Kernel* from_handle(kiln_kernel* k) { return reinterpret_cast<core::Kernel*>(k); }
inline const core::Kernel* from_handle(const kiln_kernel* k) { return reinterpret_cast<const core::Kernel*>(k); }
inline kiln_kernel* to_handle(core::Kernel* k) { return reinterpret_cast<kiln_kernel*>(k); }

// The package that owns a kernel, for its per-package last error; NULL for a NULL kernel.
inline core::Package* kernel_owner(const kiln_kernel* kernel) {
  return kernel ? &from_handle(kernel)->package() : nullptr;
}

// Sets kiln_last_error() for this thread and, if `package` is set, its per-package message, and
// gives the error's status. Never throws. (failure::Error: the tests include kiln/error.hpp too.)
kiln_status record_failure(const core::Package* package, const failure::Error& error) noexcept;
// For a `catch (...)` block: the exception being handled as a status (OUT_OF_MEMORY, else
// INTERNAL_ERROR naming `function`), recorded as record_failure does. Out of line, so that each
// entry point's guard holds one call, not a handler per exception type.
kiln_status record_exception(const core::Package* package, const char* function) noexcept;

inline Status null_argument(const char* function, const char* argument) {
  return fail(KILN_STATUS_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
}

// Runs `body` (returning Status) for the C function `function`.
template <class Body>
kiln_status guarded(const core::Package* package, const char* function, Body&& body) noexcept {
  try {
    const Status status = body();
    return status.ok() ? KILN_STATUS_SUCCESS : record_failure(package, status.error());
  } catch (...) {
    return record_exception(package, function);
  }
}

}  // namespace kiln::api
