// Private to the reader: checks that every StrRef names a NUL-terminated string of STRINGS. A short
// string is checked by looking at its bytes (most are names of a few dozen bytes, and this is the
// check open() makes most); a long one through the offsets of STRINGS' NUL bytes, found once, in
// O(log n): a reference may name any suffix of one long string, and checking each of many such with
// memchr would be quadratic in the size of STRINGS.
#pragma once

#include "layout.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kiln::format::detail {

class StringIndex {
public:
  explicit StringIndex(std::span<const std::byte> strings);

  // Whether `ref` is a string inside STRINGS with no NUL in it, followed by a NUL.
  bool valid(StrRef ref) const;
  // The offset of the NUL that ends `ref` (valid refs only): two references end at the same NUL
  // exactly when they share bytes (one is a suffix of the other).
  static std::uint64_t end_of(StrRef ref) { return std::uint64_t{ref.offset} + ref.length; }

private:
  // Strings up to this long are checked byte by byte: bounded work per reference.
  static constexpr std::uint32_t k_short = 256;

  std::span<const std::byte> m_strings;
  mutable std::vector<std::uint64_t> m_nuls;   // offsets of the NUL bytes, increasing; found on first need
  mutable bool m_indexed = false;
};

}  // namespace kiln::format::detail
