// The package checksum is XXH3-64 with seed 0; these are its published values, so a change of
// algorithm or seed (which would make every existing package unreadable) fails here first.
#include "format/checksum.hpp"

#include <gtest/gtest.h>

#include <string_view>

namespace kiln::format {
namespace {

std::uint64_t of(std::string_view text) {
  return checksum(std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
}

TEST(Checksum, IsXxh3WithSeedZero) {
  EXPECT_EQ(of(""), 0x2d06800538d394c2u);
  EXPECT_EQ(of("abc"), 0x78af5f94892f3950u);  // XXH64("abc") would be 0x44bc2cf5ad770999
  std::vector<std::byte> bytes(1000);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<std::byte>(i * 7);
  }
  EXPECT_EQ(checksum(bytes), 0x10ad30264426c830u);
}

}  // namespace
}  // namespace kiln::format

namespace kiln::format {
namespace {

// checksum() may take an AVX2 path; it must agree with the portable one at every length class XXH3
// treats differently (0-16, 17-128, 129-240, long inputs with and without a partial stripe).
TEST(Checksum, EveryCodePathGivesTheSameValue) {
  std::vector<std::byte> bytes(70000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>((i * 131u + 7u) & 0xff);
  for (std::size_t size : {0u, 1u, 3u, 16u, 17u, 128u, 129u, 240u, 241u, 1023u, 1024u, 14752u, 65536u, 70000u}) {
    const std::span<const std::byte> view(bytes.data(), size);
    EXPECT_EQ(checksum(view), checksum_baseline(view)) << size;
  }
}

}  // namespace
}  // namespace kiln::format
