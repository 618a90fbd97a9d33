#include "compile/diagnostics.hpp"

#include "util/diagnostic.hpp"

#include <algorithm>
#include <regex>

namespace kiln::compile {

namespace {

std::string display(const std::string& file, std::string_view prefix) {
  if (file.empty() || file.front() == '/' || file.front() == '<') return file;
  return std::string(prefix) + file;
}

// The severities compilers write after a location, the longest spelling of a kind first.
constexpr std::string_view k_severities[] = {"catastrophic error", "fatal error", "error", "warning", "note", "remark"};

// "12" -> 12; 0 for anything else (a file name with a colon in it).
int number(std::string_view text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos) return 0;
  return std::stoi(std::string(text));
}

// "p/k.cu:12:5" -> file, line, column; a place without a line is the file alone.
Location place_of(std::string_view text) {
  Location at;
  const std::size_t last = text.rfind(':');
  if (last != std::string_view::npos && number(text.substr(last + 1)) > 0) {
    const std::size_t before = text.rfind(':', last - 1);
    if (before != std::string_view::npos && number(text.substr(before + 1, last - before - 1)) > 0) {
      at.line = number(text.substr(before + 1, last - before - 1));
      at.column = number(text.substr(last + 1));
      text = text.substr(0, before);
    } else {
      at.line = number(text.substr(last + 1));
      text = text.substr(0, last);
    }
  }
  at.file = std::string(text);
  return at;
}

}  // namespace

std::optional<LogDiagnostic> read_log_line(std::string_view line) {
  // The place ends at the first ": " that a severity follows; a file name may hold ": " itself.
  for (std::size_t colon = line.find(": "); colon != std::string_view::npos; colon = line.find(": ", colon + 1)) {
    const std::string_view rest = line.substr(colon + 2);
    for (const std::string_view severity : k_severities) {
      if (!rest.starts_with(severity)) continue;
      std::string_view after = rest.substr(severity.size());
      if (after.starts_with(" #")) after = after.substr(std::min(after.find(':'), after.size()));   // "#177-D"
      if (!after.starts_with(": ") || colon == 0) continue;
      return LogDiagnostic{place_of(line.substr(0, colon)), std::string(severity), std::string(after.substr(2))};
    }
  }
  return std::nullopt;
}

std::string rewrite_diagnostics(std::string_view log, std::string_view display_prefix) {
  // "path(12): error: ..." / "path(12): warning #177-D: ..." / "catastrophic error"
  static const std::regex location(R"re(^([^\s(][^(\n]*)\((\d+)\): ((?:catastrophic )?error|warning|remark))re",
                                   std::regex::multiline);
  // "1 error detected in the compilation of "kernels/a.cu"."
  static const std::regex closing(R"re(in the compilation of "([^"]+)")re");
  std::string text(log);
  std::string out;
  std::smatch m;
  auto begin = text.cbegin();
  while (std::regex_search(begin, text.cend(), m, location)) {
    out.append(begin, m[0].first);
    out += display(m[1].str(), display_prefix) + ":" + m[2].str() + ": " + m[3].str();
    begin = m[0].second;
  }
  out.append(begin, text.cend());
  text = std::move(out);
  out.clear();
  begin = text.cbegin();
  while (std::regex_search(begin, text.cend(), m, closing)) {
    out.append(begin, m[0].first);
    out += "in the compilation of \"" + display(m[1].str(), display_prefix) + "\"";
    begin = m[0].second;
  }
  out.append(begin, text.cend());
  while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
  return out;
}

std::string prefix_gcc_locations(std::string_view log, std::string_view display_prefix) {
  // "kernels/a.cu:3:10: fatal error: ...", "In file included from kernels/a.cu:3:", "  from x.cuh:2,"
  static const std::regex location(R"re((^In file included from |^[ \t]+from |^)([^\s:<][^:\n]*):(\d+)(?=[:,]))re",
                                   std::regex::multiline);
  const std::string text(log);
  std::string out;
  std::smatch m;
  auto begin = text.cbegin();
  while (std::regex_search(begin, text.cend(), m, location)) {
    out.append(begin, m[0].first);
    out += m[1].str() + display(m[2].str(), display_prefix) + ":" + m[3].str();
    begin = m[0].second;
  }
  out.append(begin, text.cend());
  return out;
}

Status check_nvrtc_reads_all(std::string_view source, const Location& where) {
  const std::size_t at = source.find('\xff');
  if (at == std::string_view::npos) return Ok{};
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(source.begin(), source.begin() + at, '\n'));
  const std::size_t line_start = source.rfind('\n', at);
  const std::size_t column = at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  Location byte = where;
  byte.line = static_cast<int>(line);
  byte.column = static_cast<int>(column);
  return fail(KILN_STATUS_COMPILE_FAILED,
              "a 0xFF byte, which is not UTF-8 and which NVRTC takes for the end of the file: " +
                  std::string(k_nvrtc_stops_reading) + " and loses the rest",
              std::move(byte));
}

}  // namespace kiln::compile
