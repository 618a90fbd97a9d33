// Keeps `kiln inspect` linear in the package. Records refer to strings by offset, so a hostile
// package can name one long string from thousands of records (a unit's source from every kernel,
// suffixes of one string as lowered names): printed in full each time, a 4 MB file became gigabytes.
// Each string is printed in full while the report's strings stay within a budget proportional to
// the package; after that, a long string is shortened to its start and its length. A real package
// stays far inside it (its strings are printed a few times each).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::cli {

class StringBudget {
public:
  explicit StringBudget(std::uint64_t package_size) : m_left(k_base + k_per_package_byte * package_size) {}

  std::string operator()(std::string_view text) {
    if (text.size() <= k_always_shown) return std::string(text);
    if (text.size() <= m_left) {
      m_left -= text.size();
      return std::string(text);
    }
    m_left = 0;
    return std::string(text.substr(0, k_always_shown)) + "... (" + std::to_string(text.size()) + " bytes)";
  }

private:
  static constexpr std::uint64_t k_base = 1 << 20;
  static constexpr std::uint64_t k_per_package_byte = 8;
  static constexpr std::size_t k_always_shown = 64;  // short strings cost a constant per record
  std::uint64_t m_left;
};

}  // namespace kiln::cli
