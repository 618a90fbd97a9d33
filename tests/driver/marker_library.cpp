// A library that is not the one Kiln asks for: its constructor writes the file KILN_TEST_MARKER names,
// and it exports none of the entry points Kiln binds (cuGetProcAddress_v2, nvrtcVersion,
// nvJitLinkVersion). A loader that opened it would have run the constructor before refusing it; the
// tests check that the marker is never written.
#include <cstdio>
#include <cstdlib>

namespace {

__attribute__((constructor)) void write_marker() {
  const char* path = std::getenv("KILN_TEST_MARKER");
  if (path == nullptr) return;
  if (std::FILE* file = std::fopen(path, "w")) {
    std::fputs("constructor ran\n", file);
    std::fclose(file);
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int kiln_test_marker_library_symbol() { return 0; }
