#include "plan/text_discovery.hpp"

#include "util/file_io.hpp"

#include <algorithm>
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

// Whether `at` lies in a preprocessor directive, continued lines (a trailing backslash) included.
bool in_directive(std::string_view code, std::size_t at) {
  std::size_t line_start = code.rfind('\n', at);
  while (line_start != std::string_view::npos) {
    std::size_t end = line_start;   // the previous line's last character but trailing blanks
    while (end > 0 && (code[end - 1] == ' ' || code[end - 1] == '\t' || code[end - 1] == '\r')) --end;
    if (end == 0 || code[end - 1] != '\\') break;
    line_start = code.rfind('\n', end - 1);
  }
  return directive_at(code, line_start == std::string_view::npos ? 0 : line_start + 1);
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

bool shows_templates(std::string_view code) {
  for (std::size_t at = code.find("template"); at != std::string_view::npos; at = code.find("template", at + 1)) {
    const std::size_t after = at + 8;
    if ((at == 0 || !identifier_char(code[at - 1])) && (after == code.size() || !identifier_char(code[after])))
      return true;
  }
  return false;
}

// Whether the words just before `paren` are a built-in type's keywords (`int`, `unsigned long`), not
// an `operator`'s (`operator unsigned long ()` is a function).
bool builtin_type_before(std::string_view code, std::size_t paren) {
  const auto word_before = [&](std::size_t end, std::size_t& begin) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (end > 0 && space(code[end - 1])) --end;
    begin = end;
    while (begin > 0 && identifier_char(code[begin - 1])) --begin;
    return code.substr(begin, end - begin);
  };
  constexpr std::string_view keywords[] = {"bool", "char", "double", "float", "int", "long", "short", "signed",
                                           "unsigned", "void", "wchar_t", "char8_t", "char16_t", "char32_t",
                                           "const", "volatile"};
  const auto is_keyword = [&](std::string_view word) {
    return std::find(std::begin(keywords), std::end(keywords), word) != std::end(keywords);
  };
  std::size_t begin = 0;
  std::string_view word = word_before(paren, begin);
  if (!is_keyword(word) || word == "const" || word == "volatile") return false;
  while (is_keyword(word)) word = word_before(begin, begin);
  return word != "operator";
}

// Whether the parentheses opened at `paren` are followed by a parameter list's '('.
bool parameters_follow(std::string_view code, std::size_t paren) {
  int depth = 0;
  for (std::size_t i = paren; i < code.size(); ++i) {
    if (code[i] == '(') ++depth;
    if (code[i] == ')' && --depth == 0) {
      const std::size_t after = code.find_first_not_of(" \t\r\n", i + 1);
      return after != std::string_view::npos && code[after] == '(';
    }
  }
  return false;
}

bool shows_device_variables(std::string_view code) {
  const auto word_at = [&](std::size_t at, std::size_t length) {
    return (at == 0 || !identifier_char(code[at - 1])) &&
           (at + length == code.size() || !identifier_char(code[at + length]));
  };
  for (const std::string_view space : {"__constant__", "__managed__"})
    for (std::size_t at = code.find(space); at != std::string_view::npos; at = code.find(space, at + 1))
      if (word_at(at, space.size())) return true;
  constexpr std::string_view device = "__device__";
  for (std::size_t at = code.find(device); at != std::string_view::npos; at = code.find(device, at + 1)) {
    if (!word_at(at, device.size())) continue;
    // In a macro's body: what it declares is not known here.
    if (in_directive(code, at)) return true;
    // A function's parameter list comes before anything that ends or initializes a variable, and
    // opens with a type or ')'. A '(' that opens with anything else ('*', '&', '::') is a declarator
    // in parentheses: a pointer to a function, `__device__ float (*op)(float) = twice;`.
    const std::size_t next = code.find_first_of("(;=[{", at + device.size());
    if (next == std::string_view::npos || code[next] != '(') return true;
    const std::size_t inside = code.find_first_not_of(" \t\r\n", next + 1);
    if (inside == std::string_view::npos || (!identifier_char(code[inside]) && code[inside] != ')')) return true;
    // A parameter list follows a function's name, never a built-in type: `__device__ int (x);` is a
    // variable whose name is in parentheses; but `operator int()` is a function, and so is
    // `int (my_strcmp)(const char*, const char*)` (a name in parentheses, kept from function-like macros).
    if (builtin_type_before(code, next) && !parameters_follow(code, next)) return true;
  }
  return false;
}

bool image_decides(const manifest::Manifest& manifest, const manifest::SourceEntry& source, const UnitTextFacts& unit,
                   bool strict, bool extra_request_sources) {
  if (strict || extra_request_sources || !manifest.host_sources.empty() || !manifest.python_sources.empty()) return false;
  // 'kernels_per_image' asks nothing (plan/image_parts.hpp): nvcc units are built whole whatever their
  // bound, and a unit without templates has no names to part by.
  if (!source.instantiations.empty() || !source.variables.empty() || !source.link_group.empty()) return false;
  // The package's own names go to the sources that define them: each source's scan says which.
  if (!manifest.instantiations.empty() || !manifest.variables.empty()) return false;
  if (unit.kiln_runtime || !unit.complete) return false;
  if (unit.host_code) return true;
  // A device-only source: NVRTC compiles it whole, with nothing the scan names. Its templates'
  // instantiations are what the scan names as written, groups into image parts and warns of when none
  // is made; its variables are what the scan names for the link to keep (unnamed, they lose their
  // symbols, and a __constant__ nothing writes is folded), so a header the walk did not see may hold
  // one; a carried source is found at run time by the kernels the scan names in it
  // (package/carried_sources.hpp).
  return !unit.templates && !unit.device_variables && !unit.unseen_headers &&
         !source.carry_sources.value_or(manifest.carry_sources);
}

Discovery speculative_discovery(const manifest::Manifest& manifest, ProjectText& project,
                                const std::set<std::string>& unread) {
  Discovery discovery;
  for (const manifest::SourceEntry& source : manifest.sources) {
    const std::optional<UnitTextFacts> unit = project.facts_of(source);
    if (!unit) continue;
    SourceDiscovery& found = discovery.sources[source.path];
    found.has_host_code = found.has_host_code || unit->host_code;   // a source listed twice (variants): either entry's headers
    found.image_only = unread.count(source.path) != 0;
  }
  return discovery;
}

}  // namespace kiln::plan
