// Statuses, the version, and the calling thread's last error.
#include "api/abi_guard.hpp"
#include "util/printable.hpp"

#include <exception>
#include <new>
#include <string>

namespace kiln::api {

namespace {

thread_local std::string t_last_error;

}  // namespace

kiln_status record_failure(const core::Package* package, const Error& error) noexcept {
  // An empty message (out of memory, an unknown exception) falls back to the status description,
  // which is static and needs no allocation to hand out. A message leaves Kiln here, to be printed,
  // with its file first ("app.kiln: ..."): the control bytes of the names in it are escaped
  // (util/printable.hpp).
  try {
    t_last_error = error.message.empty() ? std::string(kiln_status_string(error.status)) : printable(error_text(error));
  } catch (...) {
    t_last_error.clear();
  }
  if (package) {
    try {
      package->record_error(t_last_error.empty() ? std::string(kiln_status_string(error.status)) : t_last_error);
    } catch (...) {
      // The per-thread message is set; the per-package one keeps its previous value.
    }
  }
  return error.status;
}

kiln_status record_exception(const core::Package* package, const char* function) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return record_failure(package, fail(KILN_STATUS_OUT_OF_MEMORY, std::string()));
  } catch (const std::exception& e) {
    try {
      return record_failure(package, fail(KILN_STATUS_INTERNAL_ERROR, std::string(function) + ": internal error: " + e.what()));
    } catch (...) {
    }
  } catch (...) {
  }
  return record_failure(package, fail(KILN_STATUS_INTERNAL_ERROR, std::string()));
}

}  // namespace kiln::api

extern "C" {

KILN_API const char* kiln_status_string(kiln_status status) {
  switch (status) {
    case KILN_STATUS_SUCCESS: return "success";
    case KILN_STATUS_INVALID_ARGUMENT: return "invalid argument";
    case KILN_STATUS_OUT_OF_MEMORY: return "out of memory";
    case KILN_STATUS_IO_ERROR: return "the package file cannot be read";
    case KILN_STATUS_NOT_A_PACKAGE: return "not a Kiln package";
    case KILN_STATUS_UNSUPPORTED_VERSION: return "unsupported package format version";
    case KILN_STATUS_TRUNCATED: return "the package is truncated";
    case KILN_STATUS_CORRUPT: return "the package is corrupt";
    case KILN_STATUS_IMAGE_CORRUPT: return "an image in the package is corrupt";
    case KILN_STATUS_KERNEL_NOT_FOUND: return "no such kernel in the package";
    case KILN_STATUS_VARIABLE_NOT_FOUND: return "no such variable in the package";
    case KILN_STATUS_NO_DRIVER: return "no CUDA driver";
    case KILN_STATUS_NO_DEVICE: return "no CUDA device";
    case KILN_STATUS_NO_IMAGE_FOR_DEVICE: return "no image for this device";
    case KILN_STATUS_DRIVER_ERROR: return "the CUDA driver reported an error";
    case KILN_STATUS_ARGUMENT_MISMATCH: return "launch arguments do not match the kernel's parameters";
    case KILN_STATUS_INTERNAL_ERROR: return "internal error in Kiln";
    case KILN_STATUS_PACKAGE_NOT_FOUND: return "no package by that name";
    case KILN_STATUS_COMPILE_FAILED: return "a run-time compile failed";
    case KILN_STATUS_NO_COMPILER: return "no usable run-time compiler (NVRTC and nvJitLink)";
  }
  return "unknown status";
}

KILN_API uint32_t kiln_version(void) { return KILN_VERSION; }

KILN_API const char* kiln_last_error(void) { return kiln::api::t_last_error.c_str(); }

}  // extern "C"
