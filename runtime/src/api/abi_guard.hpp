// What every C entry point shares: handles cast to the core objects behind them, and a guard that
// runs a body, records a failure as the thread's (and the package's) last error, and turns any
// exception into a status, since nothing may unwind across the C ABI.
#pragma once

#include "core/kernel.hpp"
#include "core/package.hpp"
#include "core/status.hpp"
#include "kiln/kiln.h"

#include <exception>
#include <new>
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

// Sets kiln_last_error() for this thread and, if `package` is set, its per-package message. Never throws.
void record_failure(const core::Package* package, const core::Status& status) noexcept;

inline core::Status null_argument(const char* function, const char* argument) {
  return core::fail(KILN_STATUS_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
}

// Runs `body` (returning core::Status) for the C function `function`.
template <class Body>
kiln_status guarded(const core::Package* package, const char* function, Body&& body) noexcept {
  core::Status status;
  try {
    status = body();
  } catch (const std::bad_alloc&) {
    status = core::Status{KILN_STATUS_OUT_OF_MEMORY, std::string()};
  } catch (const std::exception& e) {
    try {
      status = core::fail(KILN_STATUS_INTERNAL_ERROR, std::string(function) + ": internal error: " + e.what());
    } catch (...) {
      status = core::Status{KILN_STATUS_INTERNAL_ERROR, std::string()};
    }
  } catch (...) {
    status = core::Status{KILN_STATUS_INTERNAL_ERROR, std::string()};
  }
  if (!status.ok()) record_failure(package, status);
  return status.code;
}

}  // namespace kiln::api
