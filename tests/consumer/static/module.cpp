// An extension module's stand-in: the runtime linked in from Kiln::runtime_static, reached through
// two C functions named after the module (PROBE_PREFIX), the only symbols it exports.
#include <kiln/kiln.h>

#include <cstdio>
#include <cstring>

#define KILN_PROBE_JOIN2(a, b) a##b
#define KILN_PROBE_JOIN(a, b) KILN_PROBE_JOIN2(a, b)
#define KILN_PROBE_EXPORT extern "C" __attribute__((visibility("default")))

#ifdef PROBE_OWN_ZSTD
#include <zstd.h>

// A round trip through the module's own zstd (the system's libzstd.a, linked beside the runtime's
// copy): 0 when the bytes come back.
KILN_PROBE_EXPORT int KILN_PROBE_JOIN(PROBE_PREFIX, _own_zstd)(void) {
  char input[4096], packed[8192], unpacked[4096];
  for (std::size_t i = 0; i < sizeof input; ++i) input[i] = static_cast<char>('a' + i % 7);
  const std::size_t size = ZSTD_compress(packed, sizeof packed, input, sizeof input, 3);
  if (ZSTD_isError(size)) return 1;
  const std::size_t back = ZSTD_decompress(unpacked, sizeof unpacked, packed, size);
  return ZSTD_isError(back) || back != sizeof input || std::memcmp(input, unpacked, back) != 0 ? 2 : 0;
}
#endif

// Opens the package at `path` and writes "version <v> kernels <n>: <names>" into `out`; returns the
// status (the message into `out` on failure).
KILN_PROBE_EXPORT int KILN_PROBE_JOIN(PROBE_PREFIX, _open)(const char* path, char* out, size_t size) {
  kiln_package* package = nullptr;
  const kiln_status status = kiln_package_open_file(path, &package);
  if (status != KILN_STATUS_SUCCESS) {
    std::snprintf(out, size, "%s", kiln_last_error());
    return status;
  }
  const size_t count = kiln_package_kernel_count(package);
  int written = std::snprintf(out, size, "version %u kernels %zu:", kiln_version(), count);
  for (size_t i = 0; i < count && written > 0 && static_cast<size_t>(written) < size; ++i) {
    written += std::snprintf(out + written, size - written, " %s", kiln_package_kernel_name(package, i));
  }
  kiln_package_destroy(package);
  return KILN_STATUS_SUCCESS;
}

// The calling thread's last error in this module's copy of the runtime.
KILN_PROBE_EXPORT const char* KILN_PROBE_JOIN(PROBE_PREFIX, _last_error)(void) {
  return kiln_last_error();
}
