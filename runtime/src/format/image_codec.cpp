#include "image_codec.hpp"

#include "limits.hpp"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <memory>
#include <new>

namespace kiln::format::detail {
namespace {

struct DCtxDeleter {
  void operator()(ZSTD_DCtx* d) const { ZSTD_freeDCtx(d); }
};

Error refused(std::vector<std::byte>& out, std::string why) {
  out.clear();
  return fail(KILN_STATUS_IMAGE_CORRUPT, std::move(why));
}

}  // namespace

Status zstd_decompress(std::span<const std::byte> stored, std::uint64_t raw_size, std::vector<std::byte>& out) {
  out.clear();
  // The frame header states the content size; refusing a mismatch here costs no allocation.
  const unsigned long long declared = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) {
    return refused(out, "not a zstd frame");
  }
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != raw_size) {
    return refused(out, "its zstd frame holds " + std::to_string(declared) + " bytes, not " + std::to_string(raw_size));
  }
  if (raw_size > k_max_image_size) {
    return refused(out, "its size " + std::to_string(raw_size) + " exceeds the limit of " +
                            std::to_string(k_max_image_size) + " bytes");
  }
  // The frame must span the stored bytes exactly: found from its block headers before anything
  // is allocated or decoded.
  const std::size_t frame_size = ZSTD_findFrameCompressedSize(stored.data(), stored.size());
  if (ZSTD_isError(frame_size)) {
    if (ZSTD_getErrorCode(frame_size) == ZSTD_error_srcSize_wrong) return refused(out, "its zstd frame is incomplete");
    return refused(out, std::string("zstd: ") + ZSTD_getErrorName(frame_size));
  }
  if (frame_size != stored.size()) {
    return refused(out, "it has bytes after its zstd frame");
  }
  const std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
  if (!dctx) {
    throw std::bad_alloc();
  }
  // Decoded in one call straight into one buffer of the declared size (bounded by the limits, which
  // the reader applies at open), plus one byte, so that a frame that decodes too long is seen as
  // such. One call needs no window buffer of its own, and links none of zstd's streaming code.
  out.resize(static_cast<std::size_t>(raw_size + 1));
  const std::size_t decoded = ZSTD_decompressDCtx(dctx.get(), out.data(), out.size(), stored.data(), stored.size());
  if (ZSTD_isError(decoded)) {
    if (ZSTD_getErrorCode(decoded) == ZSTD_error_dstSize_tooSmall) {
      return refused(out, "it decodes to more than " + std::to_string(raw_size) + " bytes");
    }
    return refused(out, std::string("zstd: ") + ZSTD_getErrorName(decoded));  // the content checksum, damage
  }
  if (decoded != raw_size) {
    return refused(out, "it decodes to " + std::to_string(decoded) + " bytes, not " + std::to_string(raw_size));
  }
  out.resize(decoded);
  return {};
}

}  // namespace kiln::format::detail
