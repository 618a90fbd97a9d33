// zstd for image bytes, the reader's half: decoding with a size check. The loader links zstd's
// decoder alone; the writer's half is writer/image_compress.hpp. The encoding is ImageEncoding::zstd
// in layout.hpp.
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kiln::format::detail {

// Decodes `stored`, which must be exactly one zstd frame decoding to exactly `raw_size` bytes, into
// `out`; else IMAGE_CORRUPT saying why not (out is then cleared). Decodes into one buffer of
// raw_size + 1 bytes, allocated once: raw_size is at most k_max_image_size here, and the reader has
// bounded it by the package's size at open (limits.hpp). Throws std::bad_alloc when memory runs out
// (the runtime turns it into KILN_STATUS_OUT_OF_MEMORY).
Status zstd_decompress(std::span<const std::byte> stored, std::uint64_t raw_size, std::vector<std::byte>& out);

}  // namespace kiln::format::detail
