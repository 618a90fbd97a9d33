#include "names.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace kiln::format {
namespace {

// ASCII only: the rule is about bytes, so it needs no locale and gives the same key everywhere. A
// table: a lookup normalizes the name it is given, and a branch per class test cost it a third.
enum : unsigned char { k_space = 1, k_identifier = 2 };

constexpr auto k_classes = [] {
  std::array<unsigned char, 256> classes{};
  for (const char c : std::string_view(" \t\n\r\f\v")) classes[static_cast<unsigned char>(c)] = k_space;
  for (int c = 0; c < 256; ++c) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') classes[c] = k_identifier;
  }
  return classes;
}();

bool is_identifier_char(char c) { return k_classes[static_cast<unsigned char>(c)] == k_identifier; }

bool is_space(char c) { return k_classes[static_cast<unsigned char>(c)] == k_space; }

// Names are scanned a word of eight bytes at a time: a lookup normalizes the name it is given, and
// the names users write for library kernels are long (a 174-character CUB kernel's took 115 ns a
// byte at a time through the table, 67 ns so: bench/results/fleet.md). Every whitespace byte is
// below 0x21, so a word with no such byte is copied whole; the byte the test stops at goes through
// the table.
std::uint64_t word_at(const char* at) {
  std::uint64_t word;
  std::memcpy(&word, at, sizeof word);
  return word;
}

// The high bit of each byte of `word` below 0x21: exact for the least significant such byte (a
// borrow only reaches the bytes above it), and never missing one. A byte marked wrongly would only
// go through the table.
std::uint64_t below_0x21(std::uint64_t word) {
  constexpr std::uint64_t k_ones = 0x0101010101010101u, k_highs = 0x8080808080808080u;
  return (word - k_ones * 0x21) & ~word & k_highs;
}

// The position in the word of the first byte below_0x21 marked.
std::size_t first_byte_of(std::uint64_t marks) {
  const int zeros = std::endian::native == std::endian::little ? std::countr_zero(marks) : std::countl_zero(marks);
  return static_cast<std::size_t>(zeros) / 8;
}

}  // namespace

std::string_view normalize_name_into(std::string_view name, char* out) { return normalize_name_after(name, 0, out); }

std::size_t unspaced_prefix(std::string_view name) {
  std::size_t i = 0;
  while (i + 8 <= name.size()) {
    const std::uint64_t low = below_0x21(word_at(name.data() + i));
    if (low != 0) {
      i += first_byte_of(low);
      break;
    }
    i += 8;
  }
  while (i < name.size() && !is_space(name[i])) ++i;
  return i;
}

std::string_view normalize_name_after(std::string_view name, std::size_t prefix, char* out) {
  const std::size_t n = name.size();
  std::size_t size = prefix;
  std::size_t i = prefix;
  bool after_space = false;
  while (i < n) {
    if (!after_space) {
      // Up to the next byte below 0x21, eight bytes at a time. Writing all eight stays inside `out`:
      // size <= i (only dropped whitespace makes room for a kept space) and i + 8 <= n.
      while (i + 8 <= n) {
        const std::uint64_t word = word_at(name.data() + i);
        const std::uint64_t low = below_0x21(word);
        std::memcpy(out + size, &word, sizeof word);
        const std::size_t plain = low != 0 ? first_byte_of(low) : 8;
        size += plain;
        i += plain;
        if (low != 0) break;
      }
      if (i == n) break;
    }
    const char c = name[i++];
    if (is_space(c)) {
      after_space = true;
      continue;
    }
    // A run of whitespace survives as one space only where dropping it would join two words
    // ("unsigned int"); everywhere else it carries no meaning for a key.
    if (after_space && size > 0 && is_identifier_char(out[size - 1]) && is_identifier_char(c)) out[size++] = ' ';
    after_space = false;
    out[size++] = c;
  }
  return {out, size};
}

std::string normalize_name(std::string_view name) {
  std::string out(name.size(), '\0');
  out.resize(normalize_name_into(name, out.data()).size());
  return out;
}

bool is_normalized(std::string_view name) {
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!is_space(name[i])) continue;
    // Only one plain space between two identifier characters survives normalization.
    if (name[i] != ' ' || i == 0 || i + 1 == name.size() || !is_identifier_char(name[i - 1]) ||
        !is_identifier_char(name[i + 1]))
      return false;
  }
  return true;
}

std::optional<VariantName> split_variant_name(std::string_view stored) {
  const std::size_t slash = stored.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == stored.size()) {
    return std::nullopt;
  }
  return VariantName{stored.substr(0, slash), stored.substr(slash + 1)};
}

TemplateParts split_template_name(std::string_view normalized) {
  const std::size_t open = normalized.find('<');
  std::string base(normalized.substr(0, open));
  std::string arguments(open == std::string_view::npos ? std::string_view() : normalized.substr(open));
  while (!base.empty() && base.back() == ' ') base.pop_back();
  if (base.rfind("::", 0) == 0) base.erase(0, 2);
  return {std::move(base), std::move(arguments)};
}

}  // namespace kiln::format
