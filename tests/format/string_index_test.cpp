// StringIndex: a reference is valid exactly when it names NUL-free bytes inside STRINGS followed by a
// NUL, for short strings (checked byte by byte) and long ones (through the NUL offsets) alike.
#include "format/string_index.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kiln::format::detail {
namespace {

std::span<const std::byte> bytes_of(const std::string& text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

TEST(StringIndex, ShortAndLongStringsAndTheirSuffixesAreValid) {
  const std::string long_one(1000, 'x');
  const std::string strings = std::string("ab\0", 3) + long_one + std::string(1, '\0') + std::string("cd\0", 3);
  const StringIndex index(bytes_of(strings));
  EXPECT_TRUE(index.valid({0, 2}));                          // "ab"
  EXPECT_TRUE(index.valid({1, 1}));                          // "b", a suffix
  EXPECT_TRUE(index.valid({2, 0}));                          // "", the NUL itself
  EXPECT_TRUE(index.valid({3, 1000}));                       // the long one
  EXPECT_TRUE(index.valid({500, 503}));                      // a long suffix of it
  EXPECT_TRUE(index.valid({1000, 3}));                       // a short suffix of it
  EXPECT_TRUE(index.valid({1004, 2}));                       // "cd"
}

TEST(StringIndex, ReferencesAcrossANulOrWithoutOneAreRefused) {
  const std::string long_one(1000, 'x');
  const std::string strings = std::string("ab\0", 3) + long_one + std::string(1, '\0') + std::string("cd", 2);
  const StringIndex index(bytes_of(strings));
  EXPECT_FALSE(index.valid({0, 1}));                         // "a": followed by 'b', not a NUL
  EXPECT_FALSE(index.valid({0, 5}));                         // short, across "ab"'s NUL
  EXPECT_FALSE(index.valid({0, 1003}));                      // long, across "ab"'s NUL
  EXPECT_FALSE(index.valid({3, 999}));                       // long, not ended by a NUL
  EXPECT_FALSE(index.valid({1004, 2}));                      // "cd" has no NUL: STRINGS ends first
  EXPECT_FALSE(index.valid({1004, 1}));
  EXPECT_FALSE(index.valid({5000, 0}));                      // outside
  EXPECT_FALSE(index.valid({0xFFFFFFFFu, 0xFFFFFFFFu}));     // offset + length overflows 32 bits
}

}  // namespace
}  // namespace kiln::format::detail
