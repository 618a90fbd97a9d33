#include "image_codec.hpp"

#include "limits.hpp"

#include <zstd.h>

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
  const std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
  if (!dctx) {
    throw std::bad_alloc();
  }
  // One buffer of the declared size (bounded by the limits, which the reader applies at open), plus
  // one byte, so that a frame that decodes too long is seen as such. It never grows: a growing
  // buffer would hold its old and new contents at once, and cost more than the image.
  out.resize(static_cast<std::size_t>(raw_size + 1));
  ZSTD_inBuffer in{stored.data(), stored.size(), 0};
  ZSTD_outBuffer sink{out.data(), out.size(), 0};
  for (;;) {
    const std::size_t before_in = in.pos;
    const std::size_t before_out = sink.pos;
    const std::size_t ret = ZSTD_decompressStream(dctx.get(), &sink, &in);
    if (ZSTD_isError(ret)) {
      return refused(out, std::string("zstd: ") + ZSTD_getErrorName(ret));
    }
    if (ret == 0) {
      break;  // the frame is complete and its content checksum matched
    }
    if (sink.pos == sink.size) {
      return refused(out, "it decodes to more than " + std::to_string(raw_size) + " bytes");
    }
    if (in.pos == in.size || (in.pos == before_in && sink.pos == before_out)) {
      return refused(out, "its zstd frame is incomplete");
    }
  }
  if (in.pos != in.size) {
    return refused(out, "it has bytes after its zstd frame");
  }
  if (sink.pos != raw_size) {
    return refused(out, "it decodes to " + std::to_string(sink.pos) + " bytes, not " + std::to_string(raw_size));
  }
  out.resize(sink.pos);
  return {};
}

}  // namespace kiln::format::detail
