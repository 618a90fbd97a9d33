#include "util/plain_names.hpp"

namespace kiln {

namespace {

bool is_plain_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '/' || c == '+' || c == '-';
}

}  // namespace

bool is_plain_name(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (!is_plain_byte(c)) return false;
  return true;
}

bool is_plain_option(std::string_view text) {
  if (text.empty()) return false;
  for (const char c : text)
    if (!is_plain_byte(c) && c != '=' && c != ',' && c != ':' && c != '@' && c != '%') return false;
  return true;
}

std::string plain_spelling(std::string_view text) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (is_plain_byte(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '@';
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xf];
    }
  }
  return out;
}

std::string file_operand(std::string_view path) {
  return path.starts_with('-') ? "./" + std::string(path) : std::string(path);
}

}  // namespace kiln
