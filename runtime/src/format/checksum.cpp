// XXH3-64 with seed 0. xxhash is compiled into this file (XXH_INLINE_ALL) so that nothing else sees
// its macros and the runtime carries no dependency on libxxhash. Images are hashed on the first-launch
// path, so x86-64 CPUs with AVX2 use a copy built for it (checksum_avx2.cpp); XXH3's result does not
// depend on the instruction set.
#include "checksum.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(KILN_CHECKSUM_AVX2)
#include <cpuid.h>
#endif

namespace kiln::format {

#if defined(KILN_CHECKSUM_AVX2)
std::uint64_t checksum_avx2(std::span<const std::byte> bytes);  // checksum_avx2.cpp

namespace {

// Whether this CPU runs AVX2 and the OS saves its registers. Asked with CPUID and XGETBV directly:
// __builtin_cpu_supports would link libgcc's CPU model table (5.5 KB of the loader) to answer it.
bool cpu_runs_avx2() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  if ((ecx & bit_OSXSAVE) == 0 || (ecx & bit_AVX) == 0) return false;
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  constexpr unsigned k_sse_and_avx_state = 0x6;  // XCR0 bits 1 and 2: XMM and YMM saved on switches
  if ((xcr0_low & k_sse_and_avx_state) != k_sse_and_avx_state) return false;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ebx & bit_AVX2) != 0;
}

const bool k_has_avx2 = cpu_runs_avx2();

}  // namespace
#endif

std::uint64_t checksum_baseline(std::span<const std::byte> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

std::uint64_t checksum(std::span<const std::byte> bytes) {
#if defined(KILN_CHECKSUM_AVX2)
  if (k_has_avx2) return checksum_avx2(bytes);
#endif
  return checksum_baseline(bytes);
}

}  // namespace kiln::format
