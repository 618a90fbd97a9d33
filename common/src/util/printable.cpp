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

bool continuation(unsigned char c) { return (c & 0xc0) == 0x80; }

// The length of the well-formed UTF-8 sequence of two to four bytes at the start of `text`
// (Unicode's table 3-7: no overlong form, no surrogate, nothing past U+10FFFF), or 0.
std::size_t utf8_sequence_length(std::string_view text) {
  const auto at = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = at(0);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;   // the second byte's range
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (text.size() < length || at(1) < low || at(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (!continuation(at(i))) return 0;
  return length;
}

}  // namespace

std::string printable(std::string_view text, NewLines new_lines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (is_control(c, new_lines)) {
        escape(c, out);
      } else {
        out += text[i];
      }
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence_length(text.substr(i));
    // A C1 control as UTF-8 writes it (U+0080-U+009F: 0xc2 0x80-0x9f), or a byte that is no part of
    // a well-formed sequence (a lone 0x9b is CSI to a terminal that reads bytes as Latin-1): escaped.
    const bool c1 = length == 2 && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (length == 0) {
      escape(c, out);
      ++i;
    } else if (c1) {
      escape(c, out);
      escape(static_cast<unsigned char>(text[i + 1]), out);
      i += 2;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace kiln
