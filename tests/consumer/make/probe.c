/* The Make consumer: C11 against kiln.h, linked with pkg-config's flags. Opens the package "probe"
 * by name (probe.kiln, next to this program) and lists it; exit status 0 when it is found. */
#include <kiln/kiln.h>

#include <stdio.h>

int main(void) {
  kiln_package* package = NULL;
  if (kiln_package_open_named("probe", &package) != KILN_STATUS_SUCCESS) {
    fprintf(stderr, "probe: %s\n", kiln_last_error());
    return 1;
  }
  printf("probe: Kiln %u, package probe:", (unsigned)kiln_version());
  for (size_t i = 0; i < kiln_package_kernel_count(package); ++i) printf(" %s", kiln_package_kernel_name(package, i));
  printf("\n");
  kiln_package_destroy(package);
  return 0;
}
