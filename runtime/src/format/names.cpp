#include "names.hpp"

namespace kiln::format {
namespace {

// ASCII only: the rule is about bytes, so it needs no locale and gives the same key everywhere.
bool is_identifier_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::string_view normalize_name_into(std::string_view name, char* out) {
  std::size_t size = 0;
  bool after_space = false;
  for (const char c : name) {
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
