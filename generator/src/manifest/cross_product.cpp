#include "manifest/cross_product.hpp"

#include "manifest/checks.hpp"
#include "manifest/manifest_reader.hpp"

#include <algorithm>
#include <cstddef>

namespace kiln::manifest {
namespace detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A pattern cut into literal text and identifier tokens. Numbers ("0xB", "128u", "1e5f") are one
// literal token, as in the C++ preprocessor, so the letters inside them are never replaced.
struct Token {
  std::string_view text;
  bool identifier;
};

std::vector<Token> tokenize(std::string_view pattern) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const std::size_t start = i;
    const bool identifier = is_identifier_start(pattern[i]);
    if (identifier || is_digit(pattern[i])) {
      while (i < pattern.size() && (is_identifier_char(pattern[i]) || (!identifier && pattern[i] == '.'))) {
        ++i;
      }
    } else {
      ++i;
    }
    tokens.push_back({pattern.substr(start, i - start), identifier});
  }
  return tokens;
}

}  // namespace

std::vector<std::string> identifiers_in(std::string_view pattern) {
  std::vector<std::string> names;
  for (const Token& token : tokenize(pattern)) {
    if (token.identifier && std::find(names.begin(), names.end(), token.text) == names.end()) {
      names.emplace_back(token.text);
    }
  }
  return names;
}

}  // namespace detail

std::vector<std::string> expand_cross_product(
    std::string_view pattern, const std::vector<std::pair<std::string, std::vector<std::string>>>& args) {
  // Each token is either literal text or the index of the argument that replaces it. Substituting
  // from the tokens of the original pattern means a value is never itself substituted again.
  constexpr std::size_t k_literal = static_cast<std::size_t>(-1);
  struct Piece {
    std::string_view text;
    std::size_t arg;  // k_literal, or an index into args
  };
  std::vector<Piece> pieces;
  for (const detail::Token& token : detail::tokenize(pattern)) {
    std::size_t arg = k_literal;
    for (std::size_t a = 0; token.identifier && a < args.size() && arg == k_literal; ++a) {
      if (args[a].first == token.text) arg = a;
    }
    pieces.push_back({token.text, arg});
  }

  std::vector<std::string> result;
  if (std::any_of(args.begin(), args.end(), [](const auto& a) { return a.second.empty(); })) return result;
  // An odometer over the argument values: the last argument turns fastest, so the first one listed
  // is the outermost loop.
  std::vector<std::size_t> choice(args.size(), 0);
  while (true) {
    std::string expression;
    for (const Piece& piece : pieces) {
      expression +=
          piece.arg == k_literal ? piece.text : std::string_view(args[piece.arg].second[choice[piece.arg]]);
    }
    result.push_back(std::move(expression));
    std::size_t position = args.size();
    while (position > 0 && ++choice[position - 1] == args[position - 1].second.size()) {
      choice[--position] = 0;
    }
    if (position == 0) return result;
  }
}

}  // namespace kiln::manifest
