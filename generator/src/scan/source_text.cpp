#include "scan/source_text.hpp"

#include <cctype>
#include <regex>

namespace kiln::scan::detail {

namespace {

struct LogicalLine {
  int line = 0;          // 1-based line where it starts
  std::string text;      // backslash-newlines joined, comments removed
};

// Splits text into logical lines as the preprocessor sees them, roughly: continuations joined and
// comments blanked (string literals are not tracked; a "//" inside one only shortens that line).
std::vector<LogicalLine> logical_lines(std::string_view text) {
  std::vector<LogicalLine> lines;
  LogicalLine current{1, {}};
  int physical = 1;
  bool in_block_comment = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (c == '\\' && (next == '\n' || (next == '\r' && i + 2 < text.size() && text[i + 2] == '\n'))) {
      i += next == '\n' ? 1 : 2;
      ++physical;
      continue;
    }
    if (c == '\n') {
      lines.push_back(std::move(current));
      current = {++physical, {}};
      continue;
    }
    if (in_block_comment) {
      if (c == '*' && next == '/') {
        in_block_comment = false;
        current.text += ' ';
        ++i;
      }
      continue;
    }
    if (c == '/' && next == '*') {
      in_block_comment = true;
      ++i;
      continue;
    }
    if (c == '/' && next == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    current.text += c;
  }
  lines.push_back(std::move(current));
  return lines;
}

// The directive name of a preprocessor line ("if", "include"), or "".
std::string_view directive(std::string_view line) {
  std::size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return {};
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos) return {};
  std::size_t end = i;
  while (end < line.size() && (std::isalpha(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
  return line.substr(i, end - i);
}

bool any_match_at_least(const std::string& text, const std::regex& pattern, long minimum) {
  // std::regex recurses per character: leave absurdly long (generated) lines alone.
  if (text.size() > 4096) return false;
  for (std::sregex_iterator it(text.begin(), text.end(), pattern), end; it != end; ++it)
    if (const std::string digits = (*it)[1].str(); digits.size() > 9 || std::stol(digits) >= minimum) return true;
  return false;
}

}  // namespace

std::vector<IncludeDirective> include_directives(std::string_view text) {
  static const std::regex k_include(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<IncludeDirective> out;
  for (const LogicalLine& l : logical_lines(text)) {
    if (directive(l.text) != "include") continue;
    std::smatch m;
    if (l.text.size() <= 4096 && std::regex_search(l.text, m, k_include)) out.push_back({m[2].str(), m[1].str() == "<"});
  }
  return out;
}

ArchFacts arch_facts(std::string_view text) {
  static const std::regex k_arch_then_value(
      R"(__CUDA_ARCH(?:_SPECIFIC|_FAMILY_SPECIFIC)?__\s*(?:>=|<=|==|!=|>|<)\s*(\d+))");
  static const std::regex k_value_then_arch(
      R"((\d+)\s*(?:>=|<=|==|!=|>|<)\s*__CUDA_ARCH(?:_SPECIFIC|_FAMILY_SPECIFIC)?__)");
  static const std::regex k_nv_target(R"(NV_(?:PROVIDES_SM|IS_EXACTLY_SM|HAS_FEATURE_SM)_(\d+))");
  ArchFacts facts;
  struct OpenBlock {
    int first;
    bool tests_arch;
  };
  std::vector<OpenBlock> open;   // #if blocks not yet closed, innermost last
  for (const LogicalLine& l : logical_lines(text)) {
    const std::string_view d = directive(l.text);
    const bool conditional = d == "if" || d == "elif" || d == "ifdef" || d == "ifndef" || d == "elifdef" ||
                             d == "elifndef";
    const bool tests_arch = conditional && l.text.find("__CUDA_ARCH") != std::string::npos;
    if (d == "if" || d == "ifdef" || d == "ifndef") open.push_back({l.line, tests_arch});
    else if (conditional && !open.empty()) open.back().tests_arch = open.back().tests_arch || tests_arch;
    else if (d == "endif" && !open.empty()) {
      if (open.back().tests_arch) facts.arch_blocks.push_back({open.back().first, l.line});
      open.pop_back();
    }
    bool unseen = false;
    if (tests_arch) {
      facts.conditional = true;
      unseen = any_match_at_least(l.text, k_arch_then_value, 1000) ||
               any_match_at_least(l.text, k_value_then_arch, 1000);
    }
    if (l.text.find("NV_") != std::string::npos) {
      if (l.text.find("NV_IF_TARGET") != std::string::npos || l.text.find("NV_IF_ELSE_TARGET") != std::string::npos ||
          l.text.find("NV_DISPATCH_TARGET") != std::string::npos)
        facts.conditional = true;
      unseen = unseen || any_match_at_least(l.text, k_nv_target, 100);
    }
    if (unseen) facts.unseen_lines.push_back(l.line);
  }
  return facts;
}

LeadingIncludes leading_includes(std::string_view text) {
  LeadingIncludes found;
  std::size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) break;   // a last line without its break is left to the parse
    const std::string_view whole = text.substr(at, end - at);
    std::string_view trimmed = whole;
    while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) trimmed.remove_prefix(1);
    while (!trimmed.empty() && (trimmed.back() == '\r' || trimmed.back() == ' ' || trimmed.back() == '\t'))
      trimmed.remove_suffix(1);
    ++line;
    if (!trimmed.empty() && trimmed.back() == '\\') break;   // a continued line: not ours to cut
    const bool include = trimmed.starts_with("#") &&
                         trimmed.substr(trimmed.find_first_not_of(" \t", 1) == std::string_view::npos
                                            ? trimmed.size()
                                            : trimmed.find_first_not_of(" \t", 1))
                             .starts_with("include");
    if (include) {
      found.lines = line;
      found.text = std::string(text.substr(0, end + 1));
    } else if (!trimmed.empty() && !(trimmed.starts_with("//") && trimmed.find("/*") == std::string_view::npos)) {
      break;
    }
    at = end + 1;
  }
  return found;
}

std::string blank_lines(std::string_view text, int lines) {
  std::string out;
  std::size_t at = 0;
  for (int line = 0; line < lines && at < text.size(); ++line) {
    const std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) return out;
    out += '\n';
    at = end + 1;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace kiln::scan::detail
