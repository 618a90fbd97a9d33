/* kiln.h, launch.h and compile.h as an MSVC user's program takes it (tests/windows/CMakeLists.txt compiles this with clang
 * in MSVC mode, as C and as C++): the entry points are dllimport, the types and statuses as on
 * Linux. */
#include <kiln/compile.h>
#include <kiln/kiln.h>
#include <kiln/launch.h>

#ifdef __cplusplus
static_assert(sizeof(kiln_launch_config) > 0, "launch config is a complete type");
#endif

int kiln_msvc_probe(void) {
  kiln_package* package = 0;
  kiln_status status = kiln_package_open_file("saxpy.kiln", &package);
  if (status != KILN_STATUS_SUCCESS) return (int)status;
  kiln_package_destroy(package);
  return (int)kiln_version();
}
