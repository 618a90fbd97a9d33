// Splits PTX text into tokens, one at a time, dropping whitespace and comments. Only what the PTX
// reader needs is told apart: directives (".entry", ".ptr.global.align"), identifiers, numbers,
// strings, and single punctuation characters. Instruction bodies come through as ordinary tokens
// and are skipped by the reader.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kiln::image {

enum class PtxTokenKind { directive, identifier, number, string, punct, end, error };

struct PtxToken {
  PtxTokenKind kind = PtxTokenKind::end;
  std::string_view text;   // for error: the message
  int line = 0;

  bool is(char c) const { return kind == PtxTokenKind::punct && text.size() == 1 && text[0] == c; }
};

class PtxLexer {
public:
  // Trailing NULs are dropped: nvJitLink's PTX ends with one.
  explicit PtxLexer(std::string_view text);

  // The next token; `end` at the end of the text, then `end` again. An `error` token (a NUL or a
  // non-ASCII byte outside comments and strings, an unterminated comment or string) also repeats.
  PtxToken next();

private:
  PtxToken make(PtxTokenKind kind, std::size_t begin, int line);
  PtxToken fail(std::string message, int line);

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_line = 1;
  std::string m_error;
  bool m_failed = false;
  int m_error_line = 0;
};

}  // namespace kiln::image
