// kiln_package_open_named and the registration of embedded packages (core/named_package.hpp says
// where a name is looked for).
#include "api/abi_guard.hpp"
#include "core/embedded_registry.hpp"
#include "core/named_package.hpp"

#include <memory>

using kiln::api::guarded;
using kiln::api::null_argument;
using kiln::api::to_handle;
using kiln::Status;

extern "C" {

// noinline: the return address must be this call's, in the module that called it.
KILN_API __attribute__((noinline)) kiln_status kiln_package_open_named(const char* name, kiln_package** out) {
  const void* caller = __builtin_return_address(0);
  if (out) *out = nullptr;
  return guarded(nullptr, "kiln_package_open_named", [&]() -> Status {
    if (!name) return null_argument("kiln_package_open_named", "name");
    if (!out) return null_argument("kiln_package_open_named", "out");
    std::unique_ptr<kiln::core::Package> package;
    KILN_TRY(kiln::core::open_named(name, caller, package));
    *out = to_handle(package.release());
    return {};
  });
}

KILN_API kiln_status kiln_register_embedded(const char* name, const void* data, size_t size) {
  return guarded(nullptr, "kiln_register_embedded", [&]() -> Status {
    if (!name) return null_argument("kiln_register_embedded", "name");
    if (!data) return null_argument("kiln_register_embedded", "data");
    // A name kiln_package_open_named would refuse could never be found: refuse it here instead.
    KILN_TRY(kiln::core::check_package_name(name, "kiln_register_embedded"));
    kiln::core::register_embedded(name, data, size);
    return {};
  });
}

KILN_API void kiln_unregister_embedded(const char* name, const void* data) {
  if (!name || !data) return;
  try {
    kiln::core::unregister_embedded(name, data);
  } catch (...) {
    // Nothing to report from a module's destructor; the registration stays, pointing at bytes that
    // are about to go away, and is never used unless the same name is opened again.
  }
}

}  // extern "C"
