// XXH3-64 with seed 0. xxhash is compiled into this one file (XXH_INLINE_ALL) so that nothing else
// sees its macros and the runtime carries no dependency on libxxhash.
#include "checksum.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kiln::format {

std::uint64_t checksum(std::span<const std::byte> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace kiln::format
