// XXH3-64 built for AVX2 (this file is compiled with -mavx2); checksum.cpp calls it only on CPUs that
// have AVX2. XXH_NAMESPACE keeps its inlined functions apart from checksum.cpp's baseline copy.
#include "checksum.hpp"

#define XXH_NAMESPACE kiln_avx2_
#define XXH_VECTOR XXH_AVX2
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kiln::format {

std::uint64_t checksum_avx2(std::span<const std::byte> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

}  // namespace kiln::format
