#include "harvest/name_expression.hpp"

#include <algorithm>
#include <string>

namespace kiln::harvest {

namespace {

bool identifier_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool identifier_char(char c) { return identifier_start(c) || (c >= '0' && c <= '9'); }

// Printable ASCII but what could end the expression, open a block, a string, a directive or a
// comment, or be one spelled otherwise.
bool harmless(std::string_view text) {
  const bool printable = std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
  if (!printable || text.find_first_of(";{}\"#\\%`@$") != std::string_view::npos) return false;
  for (std::string_view sequence : {"??", "//", "/*", "*/"})
    if (text.find(sequence) != std::string_view::npos) return false;
  return true;
}

// "ops::scale", "::scale": identifiers joined by "::"; the length it takes from the start of `text`,
// or 0 when it does not start with one.
std::size_t qualified_name_length(std::string_view text) {
  std::size_t i = text.starts_with("::") ? 2 : 0;
  while (true) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size() || !identifier_start(text[i])) return 0;
    while (i < text.size() && identifier_char(text[i])) ++i;
    std::size_t next = i;
    while (next < text.size() && text[next] == ' ') ++next;
    if (!text.substr(next).starts_with("::")) return i;
    i = next + 2;
  }
}

// "<float, 256>", "<(N > 2), ns::T<int>>": one argument list, balanced, closing at the very end.
bool balanced_argument_list(std::string_view text) {
  if (text.empty() || text.front() != '<' || text.back() != '>') return false;
  std::string open;   // the brackets open now, innermost last
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool in_parentheses = open.find_first_of("([") != std::string::npos;
    if (c == '(' || c == '[' || (c == '<' && !in_parentheses)) {
      open.push_back(c);
    } else if (c == ')' || c == ']' || (c == '>' && !in_parentheses)) {
      const char opening = c == ')' ? '(' : c == ']' ? '[' : '<';
      if (open.empty() || open.back() != opening) return false;
      open.pop_back();
      if (open.empty() && i + 1 != text.size()) return false;   // the list closed before the end
    }
  }
  return open.empty();
}

}  // namespace

bool is_name_expression(std::string_view text) {
  if (!harmless(text)) return false;
  const std::size_t base = qualified_name_length(text);
  if (base == 0) return false;
  std::string_view rest = text.substr(base);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  return rest.empty() || balanced_argument_list(rest);
}

}  // namespace kiln::harvest
