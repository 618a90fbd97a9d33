#include "compile/ptxas_report.hpp"

#include <regex>

namespace kiln::compile {

namespace {

bool is_info(std::string_view line) { return line.starts_with("ptxas info"); }

// A line that continues the one above it, ptxas's "N bytes stack frame, ..." line: indented in
// nvcc's stderr, "ptxas         .     N bytes stack frame, ..." in nvJitLink's info log.
bool is_continuation(std::string_view line) {
  if (line.starts_with(' ') || line.starts_with('\t')) return true;
  if (!line.starts_with("ptxas")) return false;
  line.remove_prefix(5);
  const std::size_t dot = line.find_first_not_of(' ');
  return dot != 0 && dot != std::string_view::npos && line[dot] == '.';
}

template <typename Each>
void for_each_line(std::string_view text, Each each) {
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    each(text.substr(start, end - start), end < text.size());
    start = end + 1;
  }
}

}  // namespace

std::optional<Spills> ptxas_spills(std::string_view log, std::string_view target, std::string_view kernel) {
  static const std::regex entry(R"(^ptxas info\s*: Compiling entry function '([^']+)'(?: for '([^']+)')?)");
  static const std::regex properties(R"(^ptxas info\s*: Function properties for (\S+))");
  static const std::regex spills(R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::string current_target;     // from the last entry line that names one
  std::string current_function;   // from the last "Function properties for" line
  std::optional<Spills> found;
  for_each_line(log, [&](std::string_view view, bool) {
    const std::string line(view);
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      if (m[2].matched) current_target = m[2].str();
      return;
    }
    if (std::regex_search(line, m, properties)) {
      current_function = m[1].str();
      return;
    }
    if (is_continuation(line) && std::regex_search(line, m, spills) && current_function == kernel &&
        (current_target.empty() || current_target == target) && !found)
      found = Spills{std::stoull(m[1].str()), std::stoull(m[2].str())};
    if (!is_continuation(line)) current_function.clear();
  });
  return found;
}

std::string without_ptxas_info(std::string_view log) {
  std::string out;
  bool in_info = false, dropped = false;
  for_each_line(log, [&](std::string_view line, bool newline) {
    // nvJitLink ends its report with a blank line, which goes with it.
    if (is_info(line)) in_info = true;
    else if (!is_continuation(line) && !line.empty()) in_info = false;
    dropped = dropped || in_info;
    if (in_info) return;
    out += line;
    if (newline) out += '\n';
  });
  if (!dropped) return out;
  // The line that ended where the report began ends the log, which is printed with a newline of its own.
  while (out.ends_with('\n')) out.pop_back();
  if (out.find_first_not_of(" \t") == std::string::npos) return {};
  return out;
}

}  // namespace kiln::compile
