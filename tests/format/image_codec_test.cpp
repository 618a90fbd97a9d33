// The zstd codec: exactly one frame, with a content checksum, decoding to exactly the recorded
// size.
#include "format/image_codec.hpp"
#include "writer/image_compress.hpp"

#include "package_fixture.hpp"

#include <gtest/gtest.h>
#include <zstd.h>

namespace kiln::format::detail {
namespace {

using testing::Bytes;
using testing::message_of;

Bytes compress_ok(const Bytes& raw, int level = 19) {
  std::optional<Bytes> z = zstd_compress(raw, level);
  EXPECT_TRUE(z);
  return z ? *z : Bytes{};
}

TEST(ImageCodec, RoundTrips) {
  for (const Bytes& raw : {Bytes{}, testing::bytes_of("x"), testing::repetitive_bytes(300000),
                           testing::random_bytes(5000, 3)}) {
    const Bytes z = compress_ok(raw);
    Bytes out(7, std::byte{1});
    EXPECT_EQ(message_of(zstd_decompress(z, raw.size(), out)), "");
    EXPECT_EQ(out, raw);
  }
}

TEST(ImageCodec, FrameRecordsSizeAndChecksum) {
  const Bytes raw = testing::repetitive_bytes(1000);
  const Bytes z = compress_ok(raw);
  EXPECT_EQ(ZSTD_getFrameContentSize(z.data(), z.size()), 1000u);
  // Frame_Header_Descriptor (RFC 8878 3.1.1.1.1), after the 4-byte magic: bit 2 is
  // Content_Checksum_flag.
  ASSERT_GT(z.size(), 4u);
  EXPECT_NE(std::to_integer<int>(z[4]) & 0x04, 0);
  EXPECT_EQ(ZSTD_findFrameCompressedSize(z.data(), z.size()), z.size());  // one frame, nothing else
  EXPECT_EQ(compress_ok(raw), z) << "deterministic";
}

TEST(ImageCodec, RefusesWrongSizes) {
  const Bytes raw = testing::repetitive_bytes(1000);
  const Bytes z = compress_ok(raw);
  Bytes out;
  EXPECT_EQ(message_of(zstd_decompress(z, 999, out)), "its zstd frame holds 1000 bytes, not 999");
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(message_of(zstd_decompress(z, 1001, out)), "its zstd frame holds 1000 bytes, not 1001");
  EXPECT_EQ(message_of(zstd_decompress(z, ~std::uint64_t{0}, out)),
            "its zstd frame holds 1000 bytes, not 18446744073709551615");
}

// A frame that does not state its size is checked while decoding, without trusting raw_size.
TEST(ImageCodec, FrameWithoutSizeIsCheckedWhileDecoding) {
  const Bytes raw = testing::repetitive_bytes(200000);
  Bytes z(ZSTD_compressBound(raw.size()));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_inBuffer in{raw.data(), raw.size(), 0};
  ZSTD_outBuffer sink{z.data(), z.size(), 0};
  ASSERT_EQ(ZSTD_compressStream2(cctx, &sink, &in, ZSTD_e_end), 0u);  // streamed: size unknown
  ZSTD_freeCCtx(cctx);
  z.resize(sink.pos);
  ASSERT_EQ(ZSTD_getFrameContentSize(z.data(), z.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  Bytes out;
  EXPECT_EQ(message_of(zstd_decompress(z, raw.size(), out)), "");
  EXPECT_EQ(out, raw);
  EXPECT_EQ(message_of(zstd_decompress(z, raw.size() - 1, out)), "it decodes to 200000 bytes, not 199999");
  EXPECT_EQ(message_of(zstd_decompress(z, raw.size() - 1000, out)), "it decodes to more than 199000 bytes");
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(message_of(zstd_decompress(z, raw.size() + 1, out)), "it decodes to 200000 bytes, not 200001");
  EXPECT_EQ(message_of(zstd_decompress(z, 1ull << 50, out)),
            "its size 1125899906842624 exceeds the limit of 2147483648 bytes");
}

TEST(ImageCodec, RefusesDamagedFrames) {
  const Bytes raw = testing::repetitive_bytes(5000);
  const Bytes z = compress_ok(raw);
  Bytes out;
  EXPECT_EQ(message_of(zstd_decompress(testing::bytes_of("not zstd at all"), 5, out)), "not a zstd frame");
  EXPECT_EQ(message_of(zstd_decompress({}, 0, out)), "not a zstd frame");
  EXPECT_EQ(message_of(zstd_decompress(Bytes(z.begin(), z.end() - 1), 5000, out)),
            "its zstd frame is incomplete");
  Bytes two = z;
  two.insert(two.end(), z.begin(), z.end());
  EXPECT_EQ(message_of(zstd_decompress(two, 5000, out)), "it has bytes after its zstd frame");
  Bytes bad_checksum = z;
  bad_checksum.back() ^= std::byte{1};
  EXPECT_EQ(message_of(zstd_decompress(bad_checksum, 5000, out)).rfind("zstd: ", 0), 0u);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace kiln::format::detail
