// kiln_package_*: opening, listing, the calls that find kernels and variables, and coverage.
#include "api/abi_guard.hpp"

#include <memory>

using kiln::api::from_handle;
using kiln::api::guarded;
using kiln::api::null_argument;
using kiln::api::to_handle;
using kiln::Status;

namespace {

kiln_coverage coverage_of(kiln::core::Coverage coverage) {
  switch (coverage) {
    case kiln::core::Coverage::cubin: return KILN_COVERAGE_CUBIN;
    case kiln::core::Coverage::ptx: return KILN_COVERAGE_PTX;
    case kiln::core::Coverage::runtime_compile: return KILN_COVERAGE_RUNTIME_COMPILE;
    case kiln::core::Coverage::none: return KILN_COVERAGE_NONE;
  }
  return KILN_COVERAGE_NONE;
}


// A string of record `index` (of `count`) once `check()` passes, or NULL: out of range, or (an index
// read by pages) the record damaged or unreadable, which is then the last error. Never throws.
template <class Check, class Text>
const char* checked_text(const kiln_package* package, std::size_t index, std::size_t count, const char* function,
                         Check check, Text text) noexcept {
  if (!package || index >= count) return nullptr;
  const char* out = nullptr;
  guarded(from_handle(package), function, [&]() -> Status {
    KILN_TRY(check());
    out = text();
    return {};
  });
  return out;
}

}  // namespace

extern "C" {

KILN_API kiln_status kiln_package_open_file(const char* path, kiln_package** out) {
  if (out) *out = nullptr;
  return guarded(nullptr, "kiln_package_open_file", [&]() -> Status {
    if (!path) return null_argument("kiln_package_open_file", "path");
    if (!out) return null_argument("kiln_package_open_file", "out");
    std::unique_ptr<kiln::core::Package> package;
    KILN_TRY(kiln::core::Package::open_file(path, package));
    *out = to_handle(package.release());
    return {};
  });
}

KILN_API kiln_status kiln_package_open_memory(const void* data, size_t size, uint32_t flags, const char* label,
                                              kiln_package** out) {
  if (out) *out = nullptr;
  return guarded(nullptr, "kiln_package_open_memory", [&]() -> Status {
    if (!data) return null_argument("kiln_package_open_memory", "data");
    if (!out) return null_argument("kiln_package_open_memory", "out");
    if (flags != KILN_OPEN_COPY && flags != KILN_OPEN_BORROW) {
      return kiln::fail(KILN_STATUS_INVALID_ARGUMENT,
                              "kiln_package_open_memory: flags " + std::to_string(flags) +
                                  " is neither KILN_OPEN_COPY nor KILN_OPEN_BORROW");
    }
    std::unique_ptr<kiln::core::Package> package;
    KILN_TRY(kiln::core::Package::open_memory(data, size, flags == KILN_OPEN_COPY, label, package));
    *out = to_handle(package.release());
    return {};
  });
}

KILN_API void kiln_package_destroy(kiln_package* package) {
  // The destructor unloads libraries and throws nothing; NULL is a no-op.
  delete from_handle(package);
}

KILN_API const char* kiln_package_last_error(const kiln_package* package) {
  if (!package) return "";
  try {
    return from_handle(package)->last_error();
  } catch (...) {
    return "";
  }
}

KILN_API size_t kiln_package_kernel_count(const kiln_package* package) {
  return package ? from_handle(package)->reader().kernel_count() : 0;
}

KILN_API const char* kiln_package_kernel_name(const kiln_package* package, size_t index) {
  const auto i = static_cast<uint32_t>(index);
  return checked_text(
      package, index, kiln_package_kernel_count(package), "kiln_package_kernel_name",
      [&] { return from_handle(package)->checked_kernel(i); },
      // Strings in STRINGS are NUL-terminated (the reader checked), so the view is a C string.
      [&] { return from_handle(package)->reader().kernel(i).canonical_name.data(); });
}

KILN_API const char* kiln_package_kernel_lowered_name(const kiln_package* package, size_t index) {
  const auto i = static_cast<uint32_t>(index);
  return checked_text(
      package, index, kiln_package_kernel_count(package), "kiln_package_kernel_lowered_name",
      [&] { return from_handle(package)->checked_kernel(i); },
      [&] { return from_handle(package)->reader().kernel(i).lowered_name.data(); });
}

KILN_API size_t kiln_package_target_count(const kiln_package* package) {
  return package ? from_handle(package)->reader().target_count() : 0;
}

KILN_API const char* kiln_package_target(const kiln_package* package, size_t index) {
  return checked_text(
      package, index, kiln_package_target_count(package), "kiln_package_target",
      [&] { return from_handle(package)->checked_index(); },   // targets are not checked one by one
      [&] { return from_handle(package)->reader().target(static_cast<uint32_t>(index)).name.data(); });
}

KILN_API kiln_status kiln_package_get_kernel(kiln_package* package, const char* name, kiln_kernel** out) {
  if (out) *out = nullptr;
  kiln::core::Package* p = from_handle(package);
  return guarded(p, "kiln_package_get_kernel", [&]() -> Status {
    if (!package) return null_argument("kiln_package_get_kernel", "package");
    if (!name) return null_argument("kiln_package_get_kernel", "name");
    if (!out) return null_argument("kiln_package_get_kernel", "out");
    kiln::core::Kernel* kernel = nullptr;
    KILN_TRY(p->get_kernel(name, kernel));
    *out = to_handle(kernel);
    return {};
  });
}

KILN_API kiln_status kiln_package_get_global(kiln_package* package, const char* name, uint64_t* device_pointer,
                                             size_t* size) {
  if (device_pointer) *device_pointer = 0;
  if (size) *size = 0;
  kiln::core::Package* p = from_handle(package);
  return guarded(p, "kiln_package_get_global", [&]() -> Status {
    if (!package) return null_argument("kiln_package_get_global", "package");
    if (!name) return null_argument("kiln_package_get_global", "name");
    if (!device_pointer) return null_argument("kiln_package_get_global", "device_pointer");
    kiln::driver::CUdeviceptr pointer = 0;
    std::size_t bytes = 0;
    KILN_TRY(p->get_global(name, pointer, bytes));
    *device_pointer = pointer;
    if (size) *size = bytes;
    return {};
  });
}

KILN_API kiln_status kiln_package_preload(kiln_package* package) {
  kiln::core::Package* p = from_handle(package);
  return guarded(p, "kiln_package_preload", [&]() -> Status {
    if (!package) return null_argument("kiln_package_preload", "package");
    return p->preload();
  });
}

KILN_API kiln_status kiln_package_kernel_coverage(kiln_package* package, size_t index,
                                                  uint32_t compute_capability, int driver_version,
                                                  kiln_coverage* out) {
  if (out) *out = KILN_COVERAGE_NONE;
  return guarded(from_handle(package), "kiln_package_kernel_coverage", [&]() -> Status {
    if (!package) return null_argument("kiln_package_kernel_coverage", "package");
    if (!out) return null_argument("kiln_package_kernel_coverage", "out");
    kiln::core::Coverage coverage = kiln::core::Coverage::none;
    KILN_TRY(from_handle(package)->kernel_coverage(index, compute_capability, driver_version, coverage));
    *out = coverage_of(coverage);
    return {};
  });
}

}  // extern "C"
