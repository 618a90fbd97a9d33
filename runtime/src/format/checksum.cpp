// XXH3-64 with seed 0. xxhash is compiled into this file (XXH_INLINE_ALL) so that nothing else sees
// its macros and the runtime carries no dependency on libxxhash. Images are hashed on the first-launch
// path, so x86-64 CPUs with AVX2 use a copy built for it (checksum_avx2.cpp); XXH3's result does not
// depend on the instruction set.
#include "checksum.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kiln::format {

#if defined(KILN_CHECKSUM_AVX2)
std::uint64_t checksum_avx2(std::span<const std::byte> bytes);  // checksum_avx2.cpp

namespace {
const bool k_has_avx2 = __builtin_cpu_supports("avx2");
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
