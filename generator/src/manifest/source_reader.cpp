#include "manifest/source_reader.hpp"

#include "format/names.hpp"
#include "manifest/fields.hpp"
#include "manifest/paths.hpp"
#include "manifest/template_reader.hpp"

#include <array>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::manifest::detail {
namespace {

constexpr std::array<std::string_view, 6> k_source_keys = {"path",    "instantiate", "variables",
                                                           "defines", "options",     "template"};
constexpr std::array<std::string_view, 7> k_top_level_only = {
    "name", "targets", "include_dirs", "toolkit_includes", "compress", "host_sources", "python_sources"};

// Keeps the first of each name (compared normalized, so "f<int,2>" and "f<int, 2>" are one) and
// reports the others with both lines: a duplicate is a copy-paste slip or two overlapping templates,
// and an error says which, where silently dropping it would hide the slip.
std::vector<Located> unique_names(const std::vector<Located>& names, std::string_view what,
                                  std::string_view source_label, Diagnostics& diags) {
  FirstSeen seen;
  std::vector<Located> result;
  for (const Located& name : names) {
    if (const std::optional<int> first = seen.add(format::normalize_name(name.text), name.line)) {
      diags.error(name.at(), std::string(what) + " " + quote(name.text) + " is listed twice for " +
                                 std::string(source_label) + FirstSeen::note(*first));
    } else {
      result.push_back(name);
    }
  }
  return result;
}

std::vector<std::string> texts(const std::vector<Located>& names) {
  std::vector<std::string> result;
  for (const Located& name : names) result.push_back(name.text);
  return result;
}

std::vector<Located> read_templates(const toml::node& node, Diagnostics& diags) {
  std::vector<Located> expressions;
  for (const toml::table* table : read_table_list(node, "template", "[[source.template]]", diags)) {
    std::vector<Located> expanded = read_template(*table, diags);
    expressions.insert(expressions.end(), std::make_move_iterator(expanded.begin()),
                       std::make_move_iterator(expanded.end()));
  }
  return expressions;
}

}  // namespace

SourceEntry read_source(const toml::table& table, const std::filesystem::path& root, Diagnostics& diags) {
  check_keys(table,
             KeyRules{"[[source]]", k_source_keys, k_top_level_only, "it can only be set at the top level"},
             diags);
  SourceEntry entry;
  entry.line = line_of(table);
  entry.column = position_of(table).column;

  if (const toml::node* path = table.get("path")) {
    if (std::optional<std::string> text = read_string(*path, "path", diags)) {
      entry.path = check_source_path(Located{*text, line_of(*path), position_of(*path).column}, root, diags).value_or("");
    }
  } else {
    diags.error(Position{entry.line, entry.column}, "[[source]] has no 'path'");
  }
  // Messages about names name the source; fall back to its line when the path itself was bad.
  const std::string source =
      entry.path.empty() ? "the source at line " + std::to_string(entry.line) : quote(entry.path);

  std::vector<Located> expressions;
  if (const toml::node* instantiate = table.get("instantiate")) {
    expressions = read_string_list(*instantiate, "instantiate", diags);
  }
  if (const toml::node* templates = table.get("template")) {
    std::vector<Located> expanded = read_templates(*templates, diags);
    expressions.insert(expressions.end(), std::make_move_iterator(expanded.begin()),
                       std::make_move_iterator(expanded.end()));
  }
  for (const Located& name : unique_names(expressions, "name expression", source, diags)) {
    entry.instantiations.push_back(name.text);
    entry.instantiation_positions.push_back(name.at());
  }

  if (const toml::node* variables = table.get("variables")) {
    entry.variables =
        texts(unique_names(read_string_list(*variables, "variables", diags), "variable", source, diags));
  }
  if (const toml::node* defines = table.get("defines")) {
    entry.defines = read_defines(*defines, "defines", diags);
  }
  if (const toml::node* options = table.get("options")) {
    entry.options = read_options(*options, "options", diags);
  }
  return entry;
}

}  // namespace kiln::manifest::detail
