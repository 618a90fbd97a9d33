#include "names.hpp"

#include <array>

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

}  // namespace

std::string_view normalize_name_into(std::string_view name, char* out) { return normalize_name_after(name, 0, out); }

std::size_t unspaced_prefix(std::string_view name) {
  std::size_t i = 0;
  while (i < name.size() && !is_space(name[i])) ++i;
  return i;
}

std::string_view normalize_name_after(std::string_view name, std::size_t prefix, char* out) {
  std::size_t size = prefix;
  bool after_space = false;
  for (const char c : name.substr(prefix)) {
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

}  // namespace kiln::format
