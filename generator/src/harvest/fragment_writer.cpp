#include "harvest/fragment_writer.hpp"

#include <cstdio>

namespace kiln::harvest {

namespace {

// A comment ends at a newline: any control character in a cache's name is shown as '?'.
std::string comment_safe(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

}  // namespace

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04X", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string origin_comment(const HarvestedName& name) {
  std::string text = "# from ";
  for (std::size_t i = 0; i < name.origins.size(); ++i) {
    if (i) text += "; ";
    text += comment_safe(name.origins[i].cache);
    for (const std::string& target : name.origins[i].targets) text += ", " + target;
  }
  return text;
}

std::string fragment_text(const std::vector<HarvestedName>& names, std::string_view manifest) {
  std::string text = "# Kernels the run-time fallback compiled that " + comment_safe(manifest) +
                     " does not list (kiln harvest).\n"
                     "# Build them into the package with: kiln build " + comment_safe(manifest) + " --add FILE\n";
  const std::string* source = nullptr;
  for (const HarvestedName& name : names) {
    if (!source || *source != name.source) {
      if (source) text += "]\n";
      text += "\n[[source]]\npath = " + toml_string(name.source) + "\ninstantiate = [\n";
      source = &name.source;
    }
    text += "  " + origin_comment(name) + "\n  " + toml_string(name.expression) + ",\n";
  }
  if (source) text += "]\n";
  return text;
}

}  // namespace kiln::harvest
