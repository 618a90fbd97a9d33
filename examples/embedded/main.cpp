// The embedded example: a program whose kernels are linked into it (kiln_add_cache(... EMBED)) and
// that links no CUDA library at all: Kiln finds the driver at run time.
//
//   embedded [--if-gpu]
//
// It opens the package by name, lists it, and where there is a GPU, loads every kernel on device 0
// and launches fill_ramp, which writes a table in device memory (results are not read back: that
// would take a CUDA memory API; examples/saxpy shows one). Exit status: 0 success, 2 failure. With
// --if-gpu, a machine without a GPU is not a failure: the package is listed and the status is 0.
#include "report.hpp"

#include <kiln/kiln.hpp>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const bool if_gpu = argc > 1 && std::strcmp(argv[1], "--if-gpu") == 0;
  try {
    // No path: the runtime finds the package this program embeds.
    const kiln::Package package = kiln::Package::open("vector_ops");
    embedded_example::print_package(package);
    try {
      package.preload();  // selects and loads each unit's image for device 0
    } catch (const kiln::Error& error) {
      if (error.status() != KILN_STATUS_NO_DRIVER && error.status() != KILN_STATUS_NO_DEVICE) throw;
      std::fprintf(stderr, "embedded: no GPU: %s\n", error.what());
      return if_gpu ? 0 : 2;
    }
    package.kernel("fill_ramp").launch(1, 256, 0, nullptr, 3);
    const kiln::Global ramp = package.global("ramp");
    std::printf("embedded: loaded every kernel; fill_ramp launched on ramp (%zu bytes at 0x%llx)\n", ramp.size,
                static_cast<unsigned long long>(ramp.device_pointer));
    return 0;
  } catch (const kiln::Error& error) {
    std::fprintf(stderr, "embedded: %s (%s)\n", error.what(), kiln_status_string(error.status()));
    return 2;
  }
}
