#include "string_index.hpp"

#include <algorithm>
#include <cstring>

namespace kiln::format::detail {

StringIndex::StringIndex(std::span<const std::byte> strings) : m_strings(strings) {}

bool StringIndex::valid(StrRef ref) const {
  const std::uint64_t end = end_of(ref);
  const char* const first = reinterpret_cast<const char*>(m_strings.data());
  if (end >= m_strings.size() || first[end] != '\0') {
    return false;
  }
  if (ref.length <= k_short) {
    return std::memchr(first + ref.offset, '\0', ref.length) == nullptr;
  }
  if (!m_indexed) {
    for (const char *at = first, *const last = first + m_strings.size(); at < last;) {
      const void* nul = std::memchr(at, '\0', static_cast<std::size_t>(last - at));
      if (!nul) break;
      const char* found = static_cast<const char*>(nul);
      m_nuls.push_back(static_cast<std::uint64_t>(found - first));
      at = found + 1;
    }
    m_indexed = true;
  }
  // The NUL at `end`, and no NUL in [offset, end): the NUL before `end` lies before `offset`.
  const auto it = std::lower_bound(m_nuls.begin(), m_nuls.end(), end);
  return it == m_nuls.begin() || *(it - 1) < ref.offset;
}

}  // namespace kiln::format::detail
