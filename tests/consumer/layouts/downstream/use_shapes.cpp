// consumer_layouts' downstream program: has the installed libshapes.so open its package, beside it.
#include <kiln/kiln.h>   // through layouts::shapes, which links its cache, and so Kiln::runtime, PUBLIC

#include <cstdio>

extern "C" int open_package();

int main() {
  std::printf("runtime %u\n", static_cast<unsigned>(kiln_version()));
  return open_package();
}
