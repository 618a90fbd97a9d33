#include "manifest/diagnostics.hpp"

#include "util/diagnostic.hpp"

#include <algorithm>

namespace kiln::manifest::detail {

void Diagnostics::error(int line, int column, std::string message) {
  m_entries.push_back({line, column, std::move(message), {}});
}

Error Diagnostics::to_error() const {
  std::vector<Entry> sorted = m_entries;
  // The manifest's own errors first, in file order, then those moved elsewhere, in the order found.
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry& a, const Entry& b) {
    if (a.file.empty() != b.file.empty()) return a.file.empty();
    if (!a.file.empty()) return false;
    return a.line != b.line ? a.line < b.line : a.column < b.column;
  });
  const auto file_of = [&](const Entry& e) { return e.file.empty() ? m_file : e.file; };
  // The first error is the Error; the others follow in its log, each a diagnostic of its own.
  std::string others;
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    if (!others.empty()) others += '\n';
    others += diagnostic(place(file_of(sorted[i]), sorted[i].line, sorted[i].column), "error", sorted[i].message);
  }
  const Entry& first = sorted.front();
  return Error(first.message, place(file_of(first), first.line, first.column), KILN_STATUS_INVALID_ARGUMENT,
               std::move(others));
}

}  // namespace kiln::manifest::detail
