// A stand-in for a CUDA 11.x libcuda.so.1: it has the 4-argument cuGetProcAddress (11.3+) but not
// cuGetProcAddress_v2 (12.0+), which the loader takes as its version check.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) int cuInit(unsigned int) { return 0; }

extern "C" __attribute__((visibility("default"))) int cuGetProcAddress(const char*, void** pfn, int, std::uint64_t) {
  *pfn = nullptr;
  return 0;
}
