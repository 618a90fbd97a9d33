// A program of consumer_layouts: opens the package 'k' by name, next to itself.
#include <kiln/kiln.h>

#include <cstdio>

int main() {
  kiln_package* package = nullptr;
  if (kiln_package_open_named("k", &package) != KILN_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s\n", kiln_last_error());
    return 1;
  }
  std::printf("opened k: %zu kernel(s)\n", kiln_package_kernel_count(package));
  kiln_package_destroy(package);
  return 0;
}
