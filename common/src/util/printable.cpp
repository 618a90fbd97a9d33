#include "util/printable.hpp"

namespace kiln {

namespace {

bool is_control(unsigned char c, NewLines new_lines) {
  if (c == '\t' || (c == '\n' && new_lines == NewLines::keep)) return false;
  return c < 0x20 || c == 0x7f;
}

void escape(unsigned char c, std::string& out) {
  constexpr char k_digits[] = "0123456789abcdef";
  out += "\\x";
  out += k_digits[c >> 4];
  out += k_digits[c & 0xf];
}

}  // namespace

std::string printable(std::string_view text, NewLines new_lines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xc2 && i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xe0) == 0x80;
    if (c1) {
      escape(c, out);
      escape(static_cast<unsigned char>(text[++i]), out);
    } else if (is_control(c, new_lines)) {
      escape(c, out);
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace kiln
