// A MODULE library of consumer_layouts: opens the package 'k' by name, next to itself (not next to
// the program that loads it).
#include <kiln/kiln.h>

#include <cstdio>

extern "C" __attribute__((visibility("default"))) int open_package() {
  kiln_package* package = nullptr;
  if (kiln_package_open_named("k", &package) != KILN_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s\n", kiln_last_error());
    return 1;
  }
  std::printf("plugin opened k: %zu kernel(s)\n", kiln_package_kernel_count(package));
  kiln_package_destroy(package);
  return 0;
}
