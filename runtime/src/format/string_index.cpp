#include "string_index.hpp"

#include <algorithm>
#include <cstring>

namespace kiln::format::detail {

StringIndex::StringIndex(std::span<const std::byte> strings) : m_size(strings.size()) {
  const char* first = reinterpret_cast<const char*>(strings.data());
  const char* const last = first + strings.size();
  for (const char* at = first; at < last;) {
    const void* nul = std::memchr(at, '\0', static_cast<std::size_t>(last - at));
    if (!nul) break;
    const char* found = static_cast<const char*>(nul);
    m_nuls.push_back(static_cast<std::uint64_t>(found - first));
    at = found + 1;
  }
}

bool StringIndex::valid(StrRef ref) const {
  const std::uint64_t end = end_of(ref);
  if (end >= m_size) {
    return false;
  }
  // The NUL at `end`, and no NUL in [offset, end): the NUL before `end` lies before `offset`.
  const auto it = std::lower_bound(m_nuls.begin(), m_nuls.end(), end);
  if (it == m_nuls.end() || *it != end) {
    return false;
  }
  return it == m_nuls.begin() || *(it - 1) < ref.offset;
}

}  // namespace kiln::format::detail
