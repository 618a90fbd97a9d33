#include "compile/name_errors.hpp"

#include "compile/diagnostics.hpp"
#include "util/diagnostic.hpp"
#include "util/suggest.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace kiln::compile {

namespace {

constexpr std::string_view k_map = "__nv_name_map";
constexpr std::string_view k_pragma = "#pragma nv_mangled_name ";
constexpr std::string_view k_parse_echo = "Error in parsing name expression for lowered name lookup";

// One error in the name map: its message, the expression, and the caret's offset in it.
struct NameError {
  std::string message;            // "identifier \"flaot\" is undefined"
  std::string expression;         // as NVRTC echoed it: "mylib::block_sum<flaot, 256>", "&table"
  std::size_t offset = 0;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  return std::string(text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1));
}

// Where an origin is, as the user sees it, the column moved `offset` characters into the expression
// (a manifest string's column is its opening quote).
Location location(const Origin& origin, const CompileJob& job, std::size_t offset) {
  Location where = place((origin.file.starts_with('/') ? "" : job.display_prefix) + origin.file, origin.line);
  if (origin.column > 0) where.column = origin.column + 1 + static_cast<int>(offset);
  where.target = job.target;
  return where;
}

// The name NVRTC could not find, from its message: identifier "flaot" is undefined.
std::optional<std::string> undefined_identifier(const std::string& message) {
  constexpr std::string_view k_head = "identifier \"", k_tail = "\" is undefined";
  if (!message.starts_with(k_head)) return std::nullopt;
  const std::size_t end = message.find(k_tail, k_head.size());
  if (end == std::string::npos) return std::nullopt;
  return message.substr(k_head.size(), end - k_head.size());
}

// " (did you mean 'mylib::block_sum'?)" for a misspelt kernel or template, or a built-in type
// ('flaot'); a kernel named without its namespace is pointed at its qualified name.
std::string suggestion(const std::string& message, const CompileJob& job) {
  const std::optional<std::string> word = undefined_identifier(message);
  if (!word) return {};
  static constexpr std::string_view k_types[] = {
      "bool", "char", "short", "int", "long", "float", "double", "unsigned", "signed", "void",
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
      "size_t", "half", "__half", "__nv_bfloat16", "float2", "float4", "double2", "int2", "int4"};
  std::vector<std::string_view> candidates(std::begin(k_types), std::end(k_types));
  for (const std::string& kernel : job.known_kernels) {
    const std::size_t colons = kernel.rfind("::");
    const std::string_view unqualified = colons == std::string::npos ? std::string_view(kernel)
                                                                     : std::string_view(kernel).substr(colons + 2);
    if (unqualified == *word && kernel != *word) return " (did you mean '" + kernel + "'?)";
    candidates.push_back(unqualified);
  }
  const std::optional<std::string_view> best = nearest(*word, candidates);
  if (!best) return {};
  for (const std::string& kernel : job.known_kernels)   // the qualified spelling of a kernel's name
    if (kernel == *best || kernel.ends_with("::" + std::string(*best))) return " (did you mean '" + kernel + "'?)";
  return " (did you mean '" + std::string(*best) + "'?)";
}

}  // namespace

std::string explain_name_errors(const std::string& log, const CompileJob& job) {
  const std::vector<std::string> lines = lines_of(log);
  std::vector<NameError> errors;
  std::string rest;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::optional<LogDiagnostic> said = read_log_line(lines[i]);
    if (!said || said->severity != "error" || !said->where.file.ends_with(k_map)) {
      rest += lines[i] + "\n";
      continue;
    }
    NameError e{said->message, "", 0};
    // The echo and the caret follow; the block ends at a blank line.
    for (; i + 1 < lines.size() && !trimmed(lines[i + 1]).empty(); ++i) {
      const std::string& next = lines[i + 1];
      if (const std::size_t p = next.find(k_pragma); p != std::string::npos) {
        e.expression = trimmed(std::string_view(next).substr(p + k_pragma.size()));
        if (i + 2 < lines.size() && lines[i + 2].find('^') != std::string::npos) {
          const std::size_t caret = lines[i + 2].find('^'), start = p + k_pragma.size();
          e.offset = caret >= start ? caret - start : 0;
        }
      }
    }
    if (i + 1 < lines.size()) ++i;   // the blank line
    errors.push_back(std::move(e));
  }

  // An expression with a real error does not need NVRTC's "Error in parsing name expression" echo.
  std::set<std::string> explained;
  for (const NameError& e : errors)
    if (e.message.find(k_parse_echo) == std::string::npos) explained.insert(e.expression);
  std::string out;
  for (const NameError& e : errors) {
    if (e.message.find(k_parse_echo) != std::string::npos && explained.count(e.expression)) continue;
    const std::string expression = e.expression.starts_with('&') ? trimmed(e.expression.substr(1)) : e.expression;
    const std::size_t shift = e.expression.size() - expression.size();
    std::optional<Origin> origin;
    for (std::size_t k = 0; k < job.name_expressions.size() && k < job.expression_origins.size(); ++k)
      if (job.name_expressions[k] == expression && job.expression_origins[k].line > 0) origin = job.expression_origins[k];
    const std::string message = e.message.find(k_parse_echo) != std::string::npos
                                    ? "'" + expression + "' is not a name expression NVRTC can look up"
                                    : e.message;
    const std::string hint = suggestion(e.message, job);
    const std::string said_here = message + " in '" + expression + "'" + hint;
    if (!origin) {
      out += diagnostic(job.manifest_entry, "error", said_here) + "\n" +
             diagnostic(job.manifest_entry, "note", "an instantiation listed for " + job.source) + "\n";
      continue;
    }
    const bool manifest = origin->file == job.manifest_file;
    const Location at = location(*origin, job, e.offset > shift ? e.offset - shift : 0);
    const Location entry = location(*origin, job, 0);
    // A kiln_add_cache() call's name: one report at the call, under CMake's keyword for it.
    if (!origin->label.empty()) {
      out += diagnostic(at, "error", origin->label + ": " + message + hint) + "\n";
      continue;
    }
    out += diagnostic(at, "error", said_here) + "\n";
    out += diagnostic(manifest ? entry : at, "note",
                      manifest ? "an instantiation listed for " + job.source
                               : "found here: '" + expression + "' is compiled for " + job.source) +
           "\n";
  }
  out += rest;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string label_wrapper_errors(const std::string& log, const CompileJob& job) {
  const bool labelled = std::any_of(job.expression_origins.begin(), job.expression_origins.end(),
                                    [](const Origin& o) { return !o.label.empty(); });
  if (!labelled) return log;
  const std::vector<std::string> lines = lines_of(log);
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::optional<LogDiagnostic> said = read_log_line(lines[i]);
    // The echo of the wrapper's line: "    (void*)&k<flaot>,", which names the expression.
    const std::string echo = i + 1 < lines.size() ? trimmed(lines[i + 1]) : std::string();
    const Origin* origin = nullptr;
    if (said && echo.starts_with("(void*)&") && echo.ends_with(",")) {
      const std::string expression = trimmed(std::string_view(echo).substr(8, echo.size() - 9));
      for (std::size_t k = 0; k < job.name_expressions.size() && k < job.expression_origins.size(); ++k)
        if (job.name_expressions[k] == expression && !job.expression_origins[k].label.empty() &&
            job.expression_origins[k].line == said->where.line && said->where.file.ends_with(job.expression_origins[k].file))
          origin = &job.expression_origins[k];
    }
    if (origin == nullptr) {
      out += lines[i] + "\n";
      continue;
    }
    Location where = said->where;
    where.column = 0;   // a column of the wrapper's line, not of the call
    out += diagnostic(where, said->severity, origin->label + ": " + said->message) + "\n";
    // The echo, the caret and the blank line after them.
    for (++i; i + 1 < lines.size() && !trimmed(lines[i + 1]).empty(); ++i) {}
    if (i + 1 < lines.size()) ++i;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace kiln::compile
