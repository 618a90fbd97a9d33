#include "manifest/diagnostics.hpp"

#include <algorithm>

namespace kiln::manifest::detail {

void Diagnostics::error(int line, int column, std::string message) {
  m_entries.push_back({line, column, std::move(message)});
}

Error Diagnostics::to_error() const {
  std::vector<Entry> sorted = m_entries;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  std::string text;
  for (const Entry& entry : sorted) {
    if (!text.empty()) text += '\n';
    text += m_file;
    if (entry.line > 0) text += ':' + std::to_string(entry.line);
    if (entry.column > 0) text += ':' + std::to_string(entry.column);
    text += ": error: " + entry.message;
  }
  return Error{std::move(text)};
}

}  // namespace kiln::manifest::detail
