// A shared library that asks Kiln for packages by name. named_package_test.cpp copies it into a
// directory of its own, next to a package, and calls it there: the runtime must look next to this
// library (the calling module), not next to the test program or libkiln.so. It links libkiln.so,
// as consumers do, so it also reaches that library's registry of embedded packages.
#include <kiln/kiln.h>
#include <kiln/kiln.hpp>

#include <cstddef>

#define PROBE_API extern "C" __attribute__((visibility("default")))

// Opens `name` through the C interface; on success, the number of kernels in the package.
PROBE_API kiln_status named_probe_open(const char* name, std::size_t* kernel_count) {
  kiln_package* package = nullptr;
  const kiln_status status = kiln_package_open_named(name, &package);
  *kernel_count = kiln_package_kernel_count(package);
  kiln_package_destroy(package);
  return status;
}

// The same through kiln::Package::open; 0 kernels when it throws.
PROBE_API std::size_t named_probe_open_cpp(const char* name) {
  try {
    return kiln::Package::open(name).kernel_names().size();
  } catch (const kiln::Error&) {
    return 0;
  }
}

PROBE_API const char* named_probe_last_error() { return kiln_last_error(); }

PROBE_API kiln_status named_probe_register(const char* name, const void* data, std::size_t size) {
  return kiln_register_embedded(name, data, size);
}

PROBE_API void named_probe_unregister(const char* name, const void* data) { kiln_unregister_embedded(name, data); }
