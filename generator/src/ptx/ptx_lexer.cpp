#include "ptx/ptx_lexer.hpp"

namespace kiln::image {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// PTX identifiers: [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+.
bool is_word(char c) { return is_letter(c) || is_digit(c) || c == '_' || c == '$'; }

}  // namespace

PtxLexer::PtxLexer(std::string_view text) : m_text(text) {
  while (!m_text.empty() && m_text.back() == '\0') m_text.remove_suffix(1);
}

PtxToken PtxLexer::make(PtxTokenKind kind, std::size_t begin, int line) {
  return PtxToken{kind, m_text.substr(begin, m_pos - begin), line};
}

PtxToken PtxLexer::fail(std::string message, int line) {
  m_failed = true;
  m_error = std::move(message);
  m_error_line = line;
  return PtxToken{PtxTokenKind::error, m_error, line};
}

PtxToken PtxLexer::next() {
  if (m_failed) return PtxToken{PtxTokenKind::error, m_error, m_error_line};
  const std::size_t size = m_text.size();
  while (m_pos < size) {
    const char c = m_text[m_pos];
    if (c == '\n') {
      ++m_line;
      ++m_pos;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++m_pos;
    } else if (m_text.substr(m_pos, 2) == "//") {
      while (m_pos < size && m_text[m_pos] != '\n') ++m_pos;
    } else if (m_text.substr(m_pos, 2) == "/*") {
      const int start_line = m_line;
      const std::size_t close = m_text.find("*/", m_pos + 2);
      if (close == std::string_view::npos) return fail("unterminated comment", start_line);
      for (std::size_t i = m_pos; i < close; ++i) m_line += m_text[i] == '\n';
      m_pos = close + 2;
    } else {
      break;
    }
  }
  if (m_pos >= size) return PtxToken{PtxTokenKind::end, {}, m_line};

  const std::size_t begin = m_pos;
  const char c = m_text[m_pos];
  if (c == '.' && m_pos + 1 < size && (is_letter(m_text[m_pos + 1]) || m_text[m_pos + 1] == '_')) {
    // One token for ".ptr.global.align": the reader splits it into its parts.
    ++m_pos;
    while (m_pos < size && (is_word(m_text[m_pos]) || m_text[m_pos] == '.')) ++m_pos;
    return make(PtxTokenKind::directive, begin, m_line);
  }
  if (is_letter(c) || c == '_' || c == '$' || c == '%') {
    ++m_pos;
    while (m_pos < size && is_word(m_text[m_pos])) ++m_pos;
    return make(PtxTokenKind::identifier, begin, m_line);
  }
  if (is_digit(c)) {
    // Loose on purpose ("9.0", "0x1f", "0f3F800000"): the reader converts the few numbers it needs.
    while (m_pos < size && (is_word(m_text[m_pos]) || m_text[m_pos] == '.')) ++m_pos;
    return make(PtxTokenKind::number, begin, m_line);
  }
  if (c == '"') {
    const std::size_t close = m_text.find_first_of("\"\n", m_pos + 1);
    if (close == std::string_view::npos || m_text[close] != '"') return fail("unterminated string", m_line);
    m_pos = close + 1;
    return make(PtxTokenKind::string, begin, m_line);
  }
  if (c == '\0' || static_cast<unsigned char>(c) >= 0x80 || static_cast<unsigned char>(c) < 0x20)
    return fail("unexpected byte " + std::to_string(static_cast<unsigned char>(c)), m_line);
  ++m_pos;
  return make(PtxTokenKind::punct, begin, m_line);
}

}  // namespace kiln::image
