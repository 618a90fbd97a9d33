#include "manifest/fields.hpp"

#include "manifest/checks.hpp"
#include "manifest/paths.hpp"
#include "options/compiler_options.hpp"
#include "options/option_reader.hpp"

#include <algorithm>

namespace kiln::manifest::detail {

std::vector<std::string> texts(std::vector<Located> located) {
  std::vector<std::string> result;
  result.reserve(located.size());
  for (Located& entry : located) result.push_back(std::move(entry.text));
  return result;
}

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }
int line_of(const toml::key& key) { return static_cast<int>(key.source().begin.line); }
Position position_of(const toml::node& node) {
  return {static_cast<int>(node.source().begin.line), static_cast<int>(node.source().begin.column)};
}
Position position_of(const toml::key& key) {
  return {static_cast<int>(key.source().begin.line), static_cast<int>(key.source().begin.column)};
}

std::string_view describe_type(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

std::optional<toml::table> parse_document(std::string_view text, const std::filesystem::path& path,
                                          Diagnostics& diags) {
  try {
    return toml::parse(text, std::string_view(path.string()));
  } catch (const toml::parse_error& error) {
    diags.error(static_cast<int>(error.source().begin.line), static_cast<int>(error.source().begin.column),
                std::string(error.description()));
    return std::nullopt;
  }
}

void check_keys(const toml::table& table, const KeyRules& rules, Diagnostics& diags) {
  const std::string where = rules.section.empty() ? "" : " in " + std::string(rules.section);
  for (auto&& [key, value] : table) {
    const std::string_view name = key.str();
    if (std::find(rules.known.begin(), rules.known.end(), name) != rules.known.end()) continue;
    std::string message = "unknown key " + quote(name) + where;
    if (std::find(rules.elsewhere.begin(), rules.elsewhere.end(), name) != rules.elsewhere.end()) {
      message += " (" + std::string(rules.hint) + ")";
    } else {
      message += did_you_mean(name, rules.known);
    }
    diags.error(position_of(key), std::move(message));
  }
}

std::optional<std::string> read_string(const toml::node& value, std::string_view key, Diagnostics& diags) {
  const auto* string = value.as_string();
  if (string == nullptr) {
    diags.error(position_of(value), quote(key) + " must be a string, not " + std::string(describe_type(value)));
    return std::nullopt;
  }
  if (is_blank(string->get())) {
    diags.error(position_of(value), quote(key) + " is empty");
    return std::nullopt;
  }
  return string->get();
}

std::optional<bool> read_bool(const toml::node& value, std::string_view key, Diagnostics& diags) {
  if (const auto* boolean = value.as_boolean()) return boolean->get();
  diags.error(position_of(value),
              quote(key) + " must be true or false, not " + std::string(describe_type(value)));
  return std::nullopt;
}

std::optional<std::size_t> read_count(const toml::node& value, std::string_view key, std::size_t most,
                                      Diagnostics& diags) {
  const auto* integer = value.as_integer();
  if (integer == nullptr) {
    diags.error(position_of(value), quote(key) + " must be an integer, not " + std::string(describe_type(value)));
    return std::nullopt;
  }
  const std::int64_t n = integer->get();
  if (n < 0 || static_cast<std::uint64_t>(n) > most) {
    diags.error(position_of(value), quote(key) + " must be from 0 to " + std::to_string(most) + ", not " + std::to_string(n));
    return std::nullopt;
  }
  return static_cast<std::size_t>(n);
}

std::vector<Located> read_string_list(const toml::node& value, std::string_view key, Diagnostics& diags) {
  std::vector<Located> result;
  const auto* array = value.as_array();
  if (array == nullptr) {
    diags.error(position_of(value),
                quote(key) + " must be an array of strings, not " + std::string(describe_type(value)));
    return result;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    const auto* string = element.as_string();
    if (string == nullptr) {
      diags.error(position_of(element), quote(key) + " must be an array of strings; element " +
                                        std::to_string(i + 1) + " is " + std::string(describe_type(element)));
    } else if (is_blank(string->get())) {
      diags.error(position_of(element), "empty string in " + quote(key));
    } else {
      result.push_back({string->get(), line_of(element), position_of(element).column});
    }
  }
  return result;
}

std::vector<const toml::table*> read_table_list(const toml::node& value, std::string_view key,
                                                std::string_view header, Diagnostics& diags) {
  std::vector<const toml::table*> tables;
  const std::string expected = quote(key) + " must be an array of tables (" + std::string(header) + ")";
  const auto* array = value.as_array();
  if (array == nullptr) {
    diags.error(position_of(value), expected + ", not " + std::string(describe_type(value)));
    return tables;
  }
  for (std::size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    if (const auto* table = element.as_table()) {
      tables.push_back(table);
    } else {
      diags.error(position_of(element), expected + "; element " + std::to_string(i + 1) + " is " +
                                        std::string(describe_type(element)));
    }
  }
  return tables;
}

std::vector<std::string> read_defines(const toml::node& value, std::string_view key, Diagnostics& diags) {
  std::vector<Located> defines = read_string_list(value, key, diags);
  std::erase_if(defines, [&](const Located& define) {
    const Status checked = check_define(define.text);
    if (!checked) diags.error(define.at(), "define " + quote(define.text) + " in " + quote(key) + " " + checked.error().message);
    return !checked.ok();
  });
  return texts(std::move(defines));
}

std::vector<std::string> read_options(const toml::node& value, std::string_view key, const std::filesystem::path& root,
                                      Diagnostics& diags) {
  const std::vector<Located> located = read_string_list(value, key, diags);
  std::vector<std::string> options;
  for (const Located& option : located) options.push_back(option.text);
  // Checked as a list: "--maxrregcount", "64" is one option in two strings.
  const std::vector<options::OptionProblem> problems = options::check_options(options);
  for (const options::OptionProblem& problem : problems)
    diags.error(located[problem.index].at(),
                "option " + quote(problem.option) + " in " + quote(key) + " " + problem.message);
  // A pre-included header is named as #include names one, from the manifest's directory or its
  // include_dirs, or by its absolute path inside the manifest's directory: a path that leaves them
  // would read (and echo in errors) any file. A directory outside the project is for include_dirs to
  // name, where the manifest shows it.
  if (problems.empty()) {
    for (std::size_t at = 0; at < options.size();) {
      options::OptionProblem problem;
      const std::optional<options::ReadOption> read = options::read_option(options, at, problem);
      if (!read) break;
      if (read->spec->scan == options::Scan::pre_include) {
        const std::filesystem::path path(read->value);
        bool leaves = false;
        for (const std::filesystem::path& part : path) leaves = leaves || part == "..";
        if (path.is_absolute() || path.has_root_name()) {
          const std::filesystem::path inside = path.lexically_relative(std::filesystem::absolute(root).lexically_normal());
          leaves = leaves || inside.empty() || *inside.begin() == "..";
        }
        if (leaves) {
          diags.error(located[at].at(), "option " + quote(read->text) + " in " + quote(key) +
                                            " pre-includes a header outside the project: name it as #include "
                                            "would, relative to the manifest's directory or one of 'include_dirs' "
                                            "(no '..'), or by its absolute path inside the manifest's directory; a "
                                            "header elsewhere needs its directory in 'include_dirs'");
        }
      }
      at += read->strings;
    }
  }
  return options;
}

std::vector<std::string> read_include_dirs(const toml::node& value, const std::filesystem::path& root,
                                           Diagnostics& diags) {
  std::vector<std::string> dirs;
  FirstSeen seen;
  for (const Located& dir : read_string_list(value, "include_dirs", diags)) {
    std::optional<std::string> normal = check_include_dir(dir, root, diags);
    if (!normal) continue;
    if (const std::optional<int> first = seen.add(*normal, dir.line)) {
      diags.error(dir.at(), "include directory " + quote(*normal) + " is listed twice" + FirstSeen::note(*first));
      continue;
    }
    dirs.push_back(std::move(*normal));
  }
  return dirs;
}

}  // namespace kiln::manifest::detail
