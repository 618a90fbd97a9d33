// Private to the reader: where STRINGS' NUL bytes are, so that every StrRef is checked in
// O(log n) however long its string (a reference may name any suffix of one long string: checking
// each with memchr would be quadratic in the size of STRINGS).
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
  std::size_t m_size = 0;
  std::vector<std::uint64_t> m_nuls;   // offsets of the NUL bytes, increasing
};

}  // namespace kiln::format::detail
