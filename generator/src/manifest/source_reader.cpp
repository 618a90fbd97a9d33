#include "manifest/source_reader.hpp"

#include "format/names.hpp"
#include "manifest/fields.hpp"
#include "manifest/paths.hpp"
#include "manifest/template_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::manifest::detail {
namespace {

constexpr std::array<std::string_view, 11> k_source_keys = {"path",       "instantiate",  "variables",
                                                            "defines",    "options",      "include_dirs",
                                                            "template",   "variant",      "link_group",
                                                            "carry_sources", "kernels_per_image"};
constexpr std::array<std::string_view, 7> k_top_level_only = {
    "name",         "targets",        "toolkit_includes",       "compress",
    "host_sources", "python_sources", "remove_unused_variables"};

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

std::vector<Located> read_templates(const toml::node& node, Diagnostics& diags) {
  std::vector<Located> expressions;
  for (const toml::table* table : read_table_list(node, "template", "[[source.template]]", diags)) {
    std::vector<Located> expanded = read_template(*table, diags);
    expressions.insert(expressions.end(), std::make_move_iterator(expanded.begin()),
                       std::make_move_iterator(expanded.end()));
  }
  return expressions;
}

// A variant's or link group's name: it names a unit in the package and prefixes kernel names
// ("f64/scale<double>"), so it is short and plain: a letter or '_', then letters, digits, '_', '-', '.'.
std::optional<std::string> read_unit_name(const toml::node& node, std::string_view key, Diagnostics& diags) {
  std::optional<std::string> name = read_string(node, key, diags);
  if (!name) return std::nullopt;
  const auto plain = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; };
  const bool valid = !name->empty() && (std::isalpha(static_cast<unsigned char>(name->front())) || name->front() == '_') &&
                     std::all_of(name->begin(), name->end(), plain);
  if (!valid) {
    diags.error(position_of(node), quote(std::string(key)) + " " + quote(*name) +
                                       " is not a name: start with a letter or '_', then letters, digits, '_', '-' "
                                       "or '.' (it prefixes kernel names, as in '" + *name + "/scale<float>')");
    return std::nullopt;
  }
  return name;
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
    for (const Located& name : unique_names(read_string_list(*variables, "variables", diags), "variable", source, diags)) {
      entry.variables.push_back(name.text);
      entry.variable_positions.push_back(name.at());
    }
  }
  if (const toml::node* defines = table.get("defines")) {
    entry.defines = read_defines(*defines, "defines", diags);
  }
  if (const toml::node* options = table.get("options")) {
    entry.options = read_options(*options, "options", root, diags);
  }
  if (const toml::node* dirs = table.get("include_dirs")) {
    entry.include_dirs = read_include_dirs(*dirs, root, diags);
  }
  if (const toml::node* variant = table.get("variant")) {
    entry.variant_position = position_of(*variant);
    entry.variant = read_unit_name(*variant, "variant", diags).value_or("");
  }
  if (const toml::node* group = table.get("link_group")) {
    entry.link_group_position = position_of(*group);
    entry.link_group = read_unit_name(*group, "link_group", diags).value_or("");
  }
  if (const toml::node* carry = table.get("carry_sources")) {
    entry.carry_sources = read_bool(*carry, "carry_sources", diags);
  }
  if (const toml::node* bound = table.get("kernels_per_image")) {
    entry.kernels_per_image = read_count(*bound, "kernels_per_image", k_most_kernels_per_image, diags);
  }
  if (!entry.variant.empty() && !entry.link_group.empty())
    diags.error(entry.link_group_position, "variant " + quote(entry.variant) + " cannot join link group " +
                                               quote(entry.link_group) + ": a variant is a unit of its own; list "
                                               "the source without 'variant' in the group");
  return entry;
}

}  // namespace kiln::manifest::detail
