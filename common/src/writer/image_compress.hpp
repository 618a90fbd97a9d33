// zstd for image bytes, the writer's half (the reader's is format/image_codec.hpp): kept apart so
// that the loader, which only decodes, links zstd's decoder alone.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace kiln::format::detail {

// One zstd frame that records its content size and a content checksum (ZSTD_c_checksumFlag), so
// zstd itself also catches corrupted bytes. Nothing if zstd fails (it only does when out of
// memory).
std::optional<std::vector<std::byte>> zstd_compress(std::span<const std::byte> raw, int level);

}  // namespace kiln::format::detail
