#include "compile/diagnostics.hpp"

#include "util/diagnostic.hpp"
#include "util/file_io.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <vector>

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

namespace {

std::string without_spaces(std::string_view text) {
  std::string out;
  for (const char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The column in `original` (the source line as written) of what the caret at `caret` points to in
// `echo`, the line as the EDG front end echoes it: preprocessed (comments gone, macros expanded, its
// own spacing). Lines that differ in spacing only map character by character; otherwise the word at
// the caret, where it occurs once in the line. 0: not known.
int caret_column(std::string_view echo, std::size_t caret, std::string_view original) {
  if (caret >= echo.size() || std::isspace(static_cast<unsigned char>(echo[caret]))) return 0;
  if (without_spaces(echo) == without_spaces(original)) {
    std::size_t before = 0;   // non-blank characters before the caret
    for (std::size_t i = 0; i < caret; ++i) before += std::isspace(static_cast<unsigned char>(echo[i])) ? 0 : 1;
    for (std::size_t i = 0; i < original.size(); ++i) {
      if (std::isspace(static_cast<unsigned char>(original[i]))) continue;
      if (before-- == 0) return static_cast<int>(i) + 1;
    }
    return 0;
  }
  if (!is_word(echo[caret])) return 0;
  std::size_t end = caret;
  while (end < echo.size() && is_word(echo[end])) ++end;
  const std::string_view word = echo.substr(caret, end - caret);
  int found = 0;
  for (std::size_t at = original.find(word); at != std::string_view::npos; at = original.find(word, at + 1)) {
    const bool whole = (at == 0 || !is_word(original[at - 1])) &&
                       (at + word.size() == original.size() || !is_word(original[at + word.size()]));
    if (!whole) continue;
    if (found != 0) return 0;   // twice: which one is not known
    found = static_cast<int>(at) + 1;
  }
  return found;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The files a log names, each read once (a header's warnings may be many).
using ReadFiles = std::map<std::string, std::optional<std::string>>;

// Line `number` of `file` (from `root` if relative); nothing if it cannot be read.
std::optional<std::string> source_line(const std::string& file, int number, const std::filesystem::path& root,
                                       ReadFiles& read) {
  if (root.empty() || file.empty() || file.front() == '<') return std::nullopt;
  auto [text, fresh] = read.try_emplace(file);
  if (fresh) text->second = read_text_file(file.front() == '/' ? std::filesystem::path(file) : root / file);
  if (!text->second) return std::nullopt;
  const std::vector<std::string_view> lines = lines_of(*text->second);
  if (number < 1 || static_cast<std::size_t>(number) > lines.size()) return std::nullopt;
  std::string_view line = lines[static_cast<std::size_t>(number) - 1];
  if (line.ends_with('\r')) line.remove_suffix(1);
  return std::string(line);
}

}  // namespace

std::string rewrite_diagnostics(std::string_view log, std::string_view display_prefix,
                                const std::filesystem::path& root) {
  // "path(12): error: ..." / "path(12): warning #177-D: ..." / "catastrophic error"
  static const std::regex location(R"re(^([^\s(][^(]*)\((\d+)\): ((?:catastrophic )?error|warning|remark)([\s\S]*)$)re");
  static const std::regex caret_line(R"re(^\s*\^\s*$)re");
  // "1 error detected in the compilation of "kernels/a.cu"."
  static const std::regex closing(R"re(in the compilation of "([^"]+)")re");
  const std::vector<std::string_view> lines = lines_of(log);
  ReadFiles read;
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string line(lines[i]);
    std::smatch m;
    if (!std::regex_match(line, m, location)) {
      text += line + (i + 1 < lines.size() ? "\n" : "");
      continue;
    }
    // The source line echoed and a caret under the place: the column nvcc and NVRTC do not print.
    int column = 0;
    if (i + 2 < lines.size() && std::regex_match(std::string(lines[i + 2]), caret_line)) {
      const std::size_t caret = lines[i + 2].find('^');
      if (const std::optional<std::string> original = source_line(m[1].str(), number(m[2].str()), root, read))
        column = caret_column(lines[i + 1], caret, *original);
    }
    text += display(m[1].str(), display_prefix) + ":" + m[2].str() + (column ? ":" + std::to_string(column) : "") +
            ": " + m[3].str() + m[4].str() + (i + 1 < lines.size() ? "\n" : "");
  }
  std::string out;
  std::smatch m;
  auto begin = text.cbegin();
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
