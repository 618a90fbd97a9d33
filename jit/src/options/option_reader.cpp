#include "options/option_reader.hpp"

#include <algorithm>

namespace kiln::options {

namespace {

bool is_integer(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Error refused_value(std::string message) { return fail(KILN_STATUS_INVALID_ARGUMENT, std::move(message)); }

// Whether `value` is one `spec` takes: INVALID_ARGUMENT completing "option '<it>' ..." otherwise.
Status check_value(const OptionSpec& spec, const std::string& value) {
  switch (spec.values) {
    case Values::any:
      if (value.empty()) return refused_value("needs a value");
      return {};
    case Values::boolean:
      if (value == "true" || value == "false") return {};
      return refused_value("takes true or false, not '" + value + "'");
    case Values::integer:
      if (!is_integer(value)) return refused_value("takes a whole number, not '" + value + "'");
      if (spec.name == "jump-table-density" && std::stoi(value.substr(0, 4)) > 101)
        return refused_value("takes a percentage from 0 to 101, not " + value);
      return {};
    case Values::on_off:
      if (value == "on" || value == "off") return {};
      return refused_value("takes on or off, not '" + value + "'");
    case Values::fast_compile_level:
      if (value == "0" || value == "min" || value == "mid" || value == "max") return {};
      return refused_value("takes 0, min, mid or max, not '" + value + "'");
    case Values::standard:
      for (const char* known : {"c++03", "c++11", "c++14", "c++17", "c++20"})
        if (value == known) return {};
      return refused_value("takes c++03, c++11, c++14, c++17 or c++20 (NVRTC 13.0's), not '" + value + "'");
    case Values::ptxas:
      if (value.empty()) return refused_value("needs a value");
      // Comma-separated, as nvJitLink gets them one by one (link_spellings).
      for (std::size_t start = 0; start <= value.size();) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string piece = value.substr(start, comma - start);
        if (!piece.empty()) {
          if (const Status passed = check_ptxas_option(piece); !passed)
            return refused_value("passes '" + piece + "' to ptxas, which " + passed.error().message);
        }
        start = comma + 1;
      }
      return {};
  }
  return {};
}

}  // namespace

std::optional<ReadOption> read_option(std::span<const std::string> given, std::size_t at, OptionProblem& problem) {
  const std::string& text = given[at];
  problem = {at, text, ""};
  std::string_view body = text;
  if (body.starts_with("--")) body.remove_prefix(2);
  else if (body.starts_with("-")) body.remove_prefix(1);
  else {
    problem.message = "is not an option (options start with - or --)";
    return std::nullopt;
  }
  ReadOption w;
  w.index = at;
  w.text = text;
  // -DNAME, -D NAME, -D=NAME: a one-letter option and its value in one string.
  for (const char letter : {'D', 'U', 'I'}) {
    if (body.size() > 1 && body.front() == letter) {
      w.spec = find_option(std::string(1, letter));
      std::string_view value = body.substr(1);
      if (value.front() == '=' || value.front() == ' ') value.remove_prefix(1);
      w.value = std::string(value);
      w.has_value = true;
    }
  }
  if (!w.spec) {
    // "--name=value", and "--name value" in one string (as -D takes it) too.
    const std::size_t equals = body.find_first_of("= ");
    const std::string name(body.substr(0, equals));
    w.spec = find_option(name);
    if (!w.spec) {
      problem.message = "is not an option NVRTC 13.0 documents (nor one of nvcc's --extended-lambda and "
                        "--expt-relaxed-constexpr); Kiln's manifest.md (share/doc/kiln/ in its install) lists "
                        "what Kiln takes";
      return std::nullopt;
    }
    if (equals != std::string_view::npos) {
      w.value = std::string(body.substr(equals + 1));
      w.has_value = true;
    }
  }
  const bool wants = w.spec->takes == Takes::value || w.spec->takes == Takes::attached;
  if (!w.spec->refused.empty()) {
    // A refused option's value, given as the next string, is not an option of its own.
    if (wants && !w.has_value && at + 1 < given.size()) problem.option = text + " " + given[at + 1];
    problem.message = std::string(w.spec->refused);
    return std::nullopt;
  }
  if (wants && !w.has_value) {
    if (at + 1 >= given.size()) {
      problem.message = "needs a value (--" + std::string(w.spec->name) + "=VALUE, or the value as the next string)";
      return std::nullopt;
    }
    w.value = given[at + 1];
    w.has_value = true;
    w.strings = 2;
    w.text += " " + given[at + 1];
    problem.option = w.text;
  }
  if (w.spec->takes == Takes::nothing && w.has_value) {
    problem.message = "takes no value";
    return std::nullopt;
  }
  if (w.has_value) {
    if (const Status taken = check_value(*w.spec, w.value); !taken) {
      problem.message = taken.error().message;
      return std::nullopt;
    }
  }
  return w;
}

std::vector<OptionProblem> check_options(std::span<const std::string> given) {
  std::vector<OptionProblem> problems;
  for (std::size_t at = 0; at < given.size();) {
    OptionProblem problem;
    const std::optional<ReadOption> w = read_option(given, at, problem);
    if (!w) problems.push_back(problem);
    // A two-string option's value is not an option of its own.
    at += w ? w->strings : (problem.option != given[at] ? 2 : 1);
  }
  return problems;
}

std::string nvrtc_spelling(const ReadOption& w) {
  if (w.spec->takes == Takes::attached) return "-" + std::string(w.spec->short_name) + w.value;
  return "--" + std::string(w.spec->name) + (w.has_value ? "=" + w.value : "");
}

std::vector<std::string> link_spellings(const ReadOption& w) {
  std::vector<std::string> link;
  const std::string name = "-" + std::string(w.spec->link_name);
  switch (w.spec->link) {
    case Link::none: break;
    case Link::same: link.push_back(name + (w.has_value ? "=" + w.value : "")); break;
    case Link::boolean: link.push_back(name + (w.value == "true" ? "=1" : "=0")); break;
    case Link::each:
      for (std::size_t start = 0; start <= w.value.size();) {
        const std::size_t comma = std::min(w.value.find(',', start), w.value.size());
        if (comma > start) link.push_back(name + "=" + w.value.substr(start, comma - start));
        start = comma + 1;
      }
      break;
    case Link::fast_math: link.insert(link.end(), {"-ftz=1", "-prec-div=0", "-prec-sqrt=0", "-fma=1"}); break;
  }
  return link;
}

}  // namespace kiln::options
