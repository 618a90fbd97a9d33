#include "package/depfile.hpp"

#include <cstdio>

namespace kiln::package {

namespace {

// Why Make or Ninja would not read `c` back as part of a name, or null where they would (as it is,
// or escaped below). Ninja (1.11) ends a name at any byte outside letters, digits, "+,/_:.~(){}%=@[]!-"
// and bytes from 0x80 (besides the escapes); Make reads some of those as syntax. No escape helps with
// either: GNU Make reads "a\;b" as "a\" and a recipe "b", so a name with ';' would run as a command.
const char* unreadable(char c) {
  switch (c) {
  case ';': return "Make reads it as the start of a recipe";
  case '|': return "Make reads it as the start of order-only prerequisites";
  case '=': return "Make reads it as a variable assignment";
  case '*': case '?': case '[': case ']': return "Make expands it as a wildcard";
  case '(': case ')': return "Make reads it as an archive member";
  default: break;
  }
  const auto byte = static_cast<unsigned char>(c);
  const bool ninja_name = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || byte >= 0x80 ||
                          std::string_view("+,/_:.~{}%@!-").find(c) != std::string_view::npos;
  const bool escaped = c == ' ' || c == '#' || c == '$' || c == '\\';
  return ninja_name || escaped ? nullptr : "Ninja ends a name there";
}

std::string describe(char c) {
  if (c == '\n' || c == '\r') return "a line break";
  if (c == '\t') return "a tab";
  const auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20 || byte == 0x7f) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", byte);
    return std::string("the byte ") + hex;
  }
  return std::string("a '") + c + "'";
}

Result<std::string> escape(const std::string& path) {
  // Ninja reads an even run of backslashes before a space as backslashes, an odd one as an escaped
  // space: no spelling gives a name that ends in a backslash before the separator.
  if (!path.empty() && path.back() == '\\')
    return Error{"'" + path + "' ends in a backslash, which a Makefile depfile cannot hold"};
  std::string out;
  std::size_t backslashes = 0;   // the run of backslashes just written
  for (const char c : path) {
    if (const char* why = unreadable(c)) {
      const bool line_or_tab = c == '\n' || c == '\r' || c == '\t';
      return Error{"'" + path + "' has " + describe(c) + " in its name" + (line_or_tab ? "" : std::string(" (") + why + ")") +
                   ", which a Makefile depfile cannot hold"};
    }
    if (c == ' ' || c == '#' || c == ':') {
      out.append(backslashes + 1, '\\');   // each backslash before it doubled, then its own escape
    } else if (c == '$') {
      out += '$';
    }
    backslashes = c == '\\' ? backslashes + 1 : 0;
    out += c;
  }
  return out;
}

}  // namespace

Result<std::string> depfile_text(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs) {
  Result<std::string> head = escape(target.generic_string());
  if (!head) return head.error();
  std::string text = *head + ":";
  for (const auto& input : inputs) {
    Result<std::string> escaped = escape(input.generic_string());
    if (!escaped) return escaped.error();
    text += " \\\n  " + *escaped;
  }
  return text + "\n";
}

}  // namespace kiln::package
