#include "package/depfile.hpp"

namespace kiln::package {

namespace {

std::string escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

}  // namespace

std::string depfile_text(const std::filesystem::path& target, const std::vector<std::filesystem::path>& inputs) {
  std::string text = escape(target.generic_string()) + ":";
  for (const auto& input : inputs) text += " \\\n  " + escape(input.generic_string());
  return text + "\n";
}

}  // namespace kiln::package
