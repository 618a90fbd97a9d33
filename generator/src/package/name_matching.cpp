#include "package/name_matching.hpp"

#include "format/names.hpp"
#include "package/kernel_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

namespace kiln::package {

namespace {

enum class Kind { word, number, character, punct, anonymous };

struct Token {
  Kind kind;
  std::string text;
};

constexpr std::string_view k_anonymous = "(anonymous namespace)";
constexpr std::array<std::string_view, 6> k_builtin_words = {"unsigned", "signed", "int", "long", "short", "char"};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_builtin(const Token& t) {
  return t.kind == Kind::word && std::find(k_builtin_words.begin(), k_builtin_words.end(), t.text) != k_builtin_words.end();
}
bool is_punct(const Token& t, std::string_view text) { return t.kind == Kind::punct && t.text == text; }

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    std::size_t end = i + 1;
    Kind kind = Kind::punct;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    } else if (s.substr(i, k_anonymous.size()) == k_anonymous) {
      kind = Kind::anonymous;
      end = i + k_anonymous.size();
    } else if (ident_start(c)) {
      kind = Kind::word;
      while (end < s.size() && ident_char(s[end])) ++end;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      kind = Kind::number;  // a pp-number: 0x1F, 1'000, 256u, 1.5f
      while (end < s.size() && (ident_char(s[end]) || s[end] == '\'' || s[end] == '.')) ++end;
    } else if (c == '\'') {
      kind = Kind::character;
      while (end < s.size() && s[end] != '\'') end += s[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, s.size());
    } else if (s.substr(i, 2) == "::") {
      end = i + 2;
    }
    tokens.push_back({kind, std::string(s.substr(i, end - i))});
    i = end;
  }
  return tokens;
}

// "0x10" -> 16 with suffix "", "256U" -> 256 "u", "3LL" -> 3 "ll"; nothing for a non-integer.
struct Integer {
  std::uint64_t value = 0;
  std::string suffix;
};

std::optional<Integer> parse_integer(std::string text) {
  std::erase(text, '\'');
  int base = 10;
  std::size_t i = 0;
  if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (text.size() > 1 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2;
    i = 2;
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
  }
  Integer integer;
  const std::size_t digits_start = i;
  for (; i < text.size(); ++i) {
    const int digit = std::isdigit(static_cast<unsigned char>(text[i])) ? text[i] - '0'
                      : std::isxdigit(static_cast<unsigned char>(text[i])) && base == 16
                          ? std::tolower(static_cast<unsigned char>(text[i])) - 'a' + 10
                          : -1;
    if (digit < 0 || digit >= base) break;
    integer.value = integer.value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
  }
  if (i == digits_start) return std::nullopt;
  bool is_unsigned = false;
  int longs = 0;
  for (; i < text.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    if (c == 'u') {
      is_unsigned = true;
    } else if (c == 'l') {
      ++longs;
    } else {
      return std::nullopt;  // 1.5f, 1e3: not an integer
    }
  }
  integer.suffix = std::string(is_unsigned ? "u" : "") + std::string(static_cast<std::size_t>(std::min(longs, 2)), 'l');
  return integer;
}

// The value of a simple character literal: 'a' -> 97.
std::optional<std::string> character_value(const std::string& text) {
  if (text.size() == 3) return std::to_string(static_cast<int>(static_cast<unsigned char>(text[1])));
  return std::nullopt;
}

// One spelling for a run of builtin type words: "long unsigned int" -> "unsigned long".
std::vector<Token> canonical_builtin(const std::vector<Token>& run) {
  bool is_unsigned = false, is_signed = false, is_char = false, is_short = false;
  int longs = 0;
  for (const Token& t : run) {
    is_unsigned = is_unsigned || t.text == "unsigned";
    is_signed = is_signed || t.text == "signed";
    is_char = is_char || t.text == "char";
    is_short = is_short || t.text == "short";
    longs += t.text == "long" ? 1 : 0;
  }
  std::vector<std::string> words;
  if (is_unsigned) words.push_back("unsigned");
  if (is_char) {
    if (is_signed) words.push_back("signed");
    words.push_back("char");
  } else if (is_short) {
    words.push_back("short");
  } else if (longs > 0) {
    words.push_back("long");
    if (longs > 1) words.push_back("long");
  } else {
    words.push_back("int");
  }
  std::vector<Token> out;
  for (std::string& w : words) out.push_back({Kind::word, std::move(w)});
  return out;
}

// Where the type that starts at `i` ends: a run of builtin words, or a qualified name with template
// arguments ("ns::vec<float, 4>").
std::size_t type_end(const std::vector<Token>& tokens, std::size_t i) {
  if (i < tokens.size() && is_builtin(tokens[i])) {
    while (i < tokens.size() && is_builtin(tokens[i])) ++i;
    return i;
  }
  while (i < tokens.size() && tokens[i].kind == Kind::word) {
    ++i;
    if (i < tokens.size() && is_punct(tokens[i], "<")) {
      int depth = 0;
      for (; i < tokens.size(); ++i) {
        if (is_punct(tokens[i], "<")) ++depth;
        if (is_punct(tokens[i], ">") && --depth == 0) break;
      }
      if (i < tokens.size()) ++i;
    }
    if (i + 1 < tokens.size() && is_punct(tokens[i], "::") && tokens[i + 1].kind == Kind::word) {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

bool starts_argument(const std::vector<Token>& out) {
  return out.empty() || is_punct(out.back(), "<") || is_punct(out.back(), ",") || is_punct(out.back(), "(");
}

std::vector<Token> rewrite(const std::vector<Token>& in, MatchLevel level) {
  const bool loose = level == MatchLevel::loose;
  std::vector<Token> out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Token& t = in[i];
    const bool scope_follows = i + 1 < in.size() && is_punct(in[i + 1], "::");
    // nvcc wraps internal-linkage entities in "_INTERNAL_<module id>::"; a global "::" says nothing.
    if (t.kind == Kind::word && t.text.starts_with("_INTERNAL_") && scope_follows) {
      ++i;
    } else if (is_punct(t, "::") && (out.empty() || !(out.back().kind == Kind::word || is_punct(out.back(), ">")))) {
      continue;
    } else if (t.kind == Kind::anonymous && scope_follows && loose) {
      ++i;
    } else if (loose && is_punct(t, "(") && i + 1 < in.size() && is_builtin(in[i + 1])) {
      // "(char)97", "(short)-5": the demangler's casts of template arguments.
      std::size_t close = i + 1;
      while (close < in.size() && is_builtin(in[close])) ++close;
      if (close + 1 < in.size() && is_punct(in[close], ")") &&
          (in[close + 1].kind == Kind::number || is_punct(in[close + 1], "-"))) {
        i = close;
      } else {
        out.push_back(t);
      }
    } else if (is_builtin(t)) {
      std::vector<Token> run;
      while (i < in.size() && is_builtin(in[i])) run.push_back(in[i++]);
      --i;
      for (Token& w : canonical_builtin(run)) out.push_back(std::move(w));
    } else if (t.kind == Kind::word && (t.text == "const" || t.text == "volatile") && starts_argument(out)) {
      // "const float" -> "float const", as the demangler writes it.
      const std::size_t end = type_end(in, i + 1);
      if (end == i + 1) {
        out.push_back(t);
        continue;
      }
      std::vector<Token> type(in.begin() + static_cast<std::ptrdiff_t>(i + 1), in.begin() + static_cast<std::ptrdiff_t>(end));
      const std::vector<Token> canonical = rewrite(type, level);
      out.insert(out.end(), canonical.begin(), canonical.end());
      out.push_back(t);
      i = end - 1;
    } else if (t.kind == Kind::number) {
      const std::optional<Integer> integer = parse_integer(t.text);
      if (!integer) {
        out.push_back(t);
      } else {
        out.push_back({Kind::number, std::to_string(integer->value) + (loose ? "" : integer->suffix)});
      }
    } else if (t.kind == Kind::character && loose) {
      const std::optional<std::string> value = character_value(t.text);
      out.push_back(value ? Token{Kind::number, *value} : t);
    } else {
      out.push_back(t);
    }
  }
  return out;
}

std::string join(const std::vector<Token>& tokens) {
  std::string out;
  for (const Token& t : tokens) {
    if (!out.empty() && ident_char(out.back()) && !t.text.empty() && ident_char(t.text.front())) out += ' ';
    out += t.text;
  }
  return out;
}

}  // namespace

std::string comparable_name(std::string_view name, MatchLevel level) { return join(rewrite(tokenize(name), level)); }

std::optional<std::string> match_symbol(std::string_view expression, const std::vector<SymbolName>& symbols) {
  while (!expression.empty() && (expression.front() == '&' || std::isspace(static_cast<unsigned char>(expression.front()))))
    expression.remove_prefix(1);
  for (const MatchLevel level : {MatchLevel::exact, MatchLevel::loose}) {
    const std::string wanted = comparable_name(expression, level);
    std::optional<std::string> found;
    bool ambiguous = false;
    for (const SymbolName& symbol : symbols) {
      if (comparable_name(symbol.demangled, level) != wanted) continue;
      ambiguous = ambiguous || (found && *found != symbol.lowered);
      found = symbol.lowered;
    }
    if (ambiguous) return std::nullopt;
    if (found) return found;
  }
  return std::nullopt;
}

std::optional<std::string> match_mangled(std::string_view mangled, const std::vector<SymbolName>& symbols) {
  if (mangled.empty()) return std::nullopt;
  for (const SymbolName& symbol : symbols)
    if (symbol.lowered == mangled) return symbol.lowered;
  const std::string wanted = format::normalize_name(canonical_kernel_name(mangled));
  if (wanted == mangled) return std::nullopt;   // did not demangle: nothing to compare
  std::optional<std::string> found;
  for (const SymbolName& symbol : symbols) {
    if (format::normalize_name(symbol.demangled) != wanted) continue;
    if (found && *found != symbol.lowered) return std::nullopt;   // two internal-linkage twins
    found = symbol.lowered;
  }
  return found;
}

}  // namespace kiln::package
