#include "util/diagnostic.hpp"

namespace kiln {

std::string diagnostic(std::string_view file, int line, int column, std::string_view severity,
                       std::string_view message) {
  std::string out(file);
  if (line > 0) {
    out += ':' + std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  out += ": ";
  out += severity;
  out += ": ";
  out += message;
  return out;
}

bool is_diagnostic(std::string_view text) {
  const std::string_view first_line = text.substr(0, text.find('\n'));
  for (const std::string_view severity : {": error: ", ": warning: "}) {
    const std::size_t at = first_line.find(severity);
    // "kiln: error: ..." is the command's own voice, not a place in a file.
    if (at != std::string_view::npos && at > 0 && first_line.substr(0, at) != "kiln") return true;
  }
  return false;
}

}  // namespace kiln
