#include "package/depfile.hpp"

namespace kiln::package {

namespace {

Result<std::string> escape(const std::string& path) {
  // Ninja reads an even run of backslashes before a space as backslashes, an odd one as an escaped
  // space: no spelling gives a name that ends in a backslash before the separator.
  if (!path.empty() && path.back() == '\\')
    return Error{"'" + path + "' ends in a backslash, which a Makefile depfile cannot hold"};
  std::string out;
  std::size_t backslashes = 0;   // the run of backslashes just written
  for (const char c : path) {
    if (c == '\n' || c == '\r' || c == '\t') {
      return Error{"'" + path + "' has a " + (c == '\t' ? "tab" : "line break") +
                   " in its name, which a Makefile depfile cannot hold"};
    }
    if (c == ' ' || c == '#') {
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
