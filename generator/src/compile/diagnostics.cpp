#include "compile/diagnostics.hpp"

#include <algorithm>
#include <regex>

namespace kiln::compile {

namespace {

std::string display(const std::string& file, std::string_view prefix) {
  if (file.empty() || file.front() == '/' || file.front() == '<') return file;
  return std::string(prefix) + file;
}

}  // namespace

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

std::string find_nvrtc_end_of_file(std::string_view source, std::string_view where) {
  const std::size_t at = source.find('\xff');
  if (at == std::string_view::npos) return "";
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(source.begin(), source.begin() + at, '\n'));
  const std::size_t line_start = source.rfind('\n', at);
  const std::size_t column = at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return std::string(where) + ":" + std::to_string(line) + ":" + std::to_string(column) +
         ": error: a 0xFF byte, which is not UTF-8 and which NVRTC takes for the end of the file: " +
         std::string(k_nvrtc_stops_reading) + " and loses the rest";
}

}  // namespace kiln::compile
