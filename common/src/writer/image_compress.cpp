#include "writer/image_compress.hpp"

#include <zstd.h>

#include <memory>

namespace kiln::format::detail {
namespace {

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

}  // namespace

std::optional<std::vector<std::byte>> zstd_compress(std::span<const std::byte> raw, int level) {
  const std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  if (!cctx) {
    return std::nullopt;
  }
  // Single-threaded (the default) keeps the output a function of the input and level alone.
  if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1))) {
    return std::nullopt;
  }
  std::vector<std::byte> out(ZSTD_compressBound(raw.size()));
  const std::size_t size =
      ZSTD_compress2(cctx.get(), out.data(), out.size(), raw.data(), raw.size());
  if (ZSTD_isError(size)) {
    return std::nullopt;
  }
  out.resize(size);
  return out;
}

}  // namespace kiln::format::detail
