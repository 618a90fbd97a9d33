#include "plan/text_discovery.hpp"

#include "util/file_io.hpp"

#include <cctype>

namespace kiln::plan {

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether a line of `code` is `#include` naming something that contains `name`.
bool includes(std::string_view code, std::string_view name) {
  std::size_t line_start = 0;
  while (line_start < code.size()) {
    std::size_t line_end = code.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = code.size();
    std::string_view line = code.substr(line_start, line_end - line_start);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '#') {
      line.remove_prefix(first + 1);
      const std::size_t directive = line.find_first_not_of(" \t");
      if (directive != std::string_view::npos && line.substr(directive).starts_with("include") &&
          line.find(name) != std::string_view::npos)
        return true;
    }
    line_start = line_end + 1;
  }
  return false;
}

// Whether the line that starts at `at` is a preprocessor directive.
bool directive_at(std::string_view text, std::size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t')) ++at;
  return at < text.size() && text[at] == '#';
}

// Whether `code` calls a function of the CUDA runtime API: `cuda` and a capital letter starting a
// word, then `(` (cudaMalloc(, cudaGetDeviceCount (, cudaSetDevice(). Types (cudaStream_t) are not calls.
bool calls_cuda_runtime(std::string_view code) {
  for (std::size_t at = code.find("cuda"); at != std::string_view::npos; at = code.find("cuda", at + 1)) {
    if (at > 0 && identifier_char(code[at - 1])) continue;
    std::size_t end = at + 4;
    if (end >= code.size() || !std::isupper(static_cast<unsigned char>(code[end]))) continue;
    while (end < code.size() && identifier_char(code[end])) ++end;
    while (end < code.size() && (code[end] == ' ' || code[end] == '\t')) ++end;
    if (end < code.size() && code[end] == '(') return true;
  }
  return false;
}

}  // namespace

std::string code_only(std::string_view text) {
  std::string out(text);
  enum class In { code, line_comment, block_comment, string, character } in = In::code;
  // A directive's string is a file name (#include "kiln.hpp"): kept.
  bool directive = directive_at(text, 0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const char next = i + 1 < out.size() ? out[i + 1] : '\0';
    if (c == '\n') directive = directive_at(text, i + 1);
    switch (in) {
      case In::code:
        if (c == '/' && next == '/') in = In::line_comment, out[i] = ' ';
        else if (c == '/' && next == '*') in = In::block_comment, out[i] = ' ', out[++i] = ' ';
        else if (c == '"' && !directive) in = In::string;
        // A quote after a digit separates digits (1'000).
        else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(out[i - 1])))) in = In::character;
        break;
      case In::line_comment:
        if (c == '\n') in = In::code;
        else out[i] = ' ';
        break;
      case In::block_comment:
        if (c == '*' && next == '/') in = In::code, out[i] = ' ', out[++i] = ' ';
        else if (c != '\n') out[i] = ' ';
        break;
      case In::string:
      case In::character:
        if (c == '\\' && next != '\0' && next != '\n') out[i] = ' ', out[++i] = ' ';
        else if ((in == In::string && c == '"') || (in == In::character && c == '\'')) in = In::code;
        else if (c == '\n') in = In::code;   // an unterminated literal ends with its line
        else out[i] = ' ';
        break;
    }
  }
  return out;
}

bool looks_like_host_code(std::string_view code) {
  if (code.find("<<<") != std::string_view::npos || includes(code, "cuda_runtime")) return true;
  for (const std::string_view header : {"<iostream>", "<cstdio>", "<stdio.h>", "<cstdlib>", "<stdlib.h>", "<vector>",
                                        "<string>", "<chrono>", "<thread>", "<fstream>"})
    if (includes(code, header)) return true;
  if (includes(code, "<cuda.h>") || includes(code, "\"cuda.h\"")) return true;   // the driver API
  if (calls_cuda_runtime(code)) return true;
  for (std::size_t at = code.find("main"); at != std::string_view::npos; at = code.find("main", at + 1)) {
    if (at > 0 && identifier_char(code[at - 1])) continue;
    std::size_t after = at + 4;
    while (after < code.size() && (code[after] == ' ' || code[after] == '\t')) ++after;
    if (after < code.size() && code[after] == '(') return true;
  }
  return false;
}

bool uses_kiln_runtime(std::string_view code) {
  return includes(code, "kiln") || code.find("kiln_package_get") != std::string_view::npos ||
         code.find("kiln::") != std::string_view::npos;
}

bool image_decides(const manifest::Manifest& manifest, const manifest::SourceEntry& source, const UnitTextFacts& unit,
                   bool strict, bool extra_request_sources) {
  if (strict || extra_request_sources || !manifest.host_sources.empty() || !manifest.python_sources.empty()) return false;
  // nvcc units are built whole whatever their bound (plan/image_parts.hpp): 'kernels_per_image' asks nothing.
  if (!source.instantiations.empty() || !source.variables.empty() || !source.link_group.empty()) return false;
  // The package's own names go to the sources that define them: each source's scan says which.
  if (!manifest.instantiations.empty() || !manifest.variables.empty()) return false;
  return unit.host_code && !unit.kiln_runtime && unit.complete;
}

Discovery speculative_discovery(const manifest::Manifest& manifest) {
  Discovery discovery;
  ProjectText project(manifest);
  for (const manifest::SourceEntry& source : manifest.sources) {
    const std::optional<UnitTextFacts> unit = project.facts_of(source);
    if (!unit) continue;
    bool& host_code = discovery.sources[source.path].has_host_code;
    host_code = host_code || unit->host_code;   // a source listed twice (variants): either entry's headers
  }
  return discovery;
}

}  // namespace kiln::plan
