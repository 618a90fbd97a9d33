// Typed access to manifest values: each reader checks the TOML type, reports mistakes to Diagnostics
// with the line of the offending value, and returns what is usable so later checks still run.
// Internal to kiln_manifest; the only place besides the readers that sees toml++.
#pragma once

#include "manifest/diagnostics.hpp"

#include <toml++/toml.h>

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::manifest::detail {

int line_of(const toml::node& node);
int line_of(const toml::key& key);
Position position_of(const toml::node& node);
Position position_of(const toml::key& key);

// "a string", "an integer", "an array", ...: for "'x' must be ..., not <type>".
std::string_view describe_type(const toml::node& node);

// Which keys a table accepts. A key from `elsewhere` belongs at another level and gets `hint`
// instead of a spelling suggestion.
struct KeyRules {
  std::string_view section;  // "" (top level), "[[source]]", ...
  std::span<const std::string_view> known;
  std::span<const std::string_view> elsewhere;
  std::string_view hint;
};

// The TOML document `text` (read from `path`), or nothing with its syntax error reported at its
// line and column. toml++ is built with exceptions; this is the one place they can come from.
std::optional<toml::table> parse_document(std::string_view text, const std::filesystem::path& path,
                                          Diagnostics& diags);

// Reports every key of `table` that `rules` does not know.
void check_keys(const toml::table& table, const KeyRules& rules, Diagnostics& diags);

// A non-empty string; reports anything else.
std::optional<std::string> read_string(const toml::node& value, std::string_view key, Diagnostics& diags);
std::optional<bool> read_bool(const toml::node& value, std::string_view key, Diagnostics& diags);
// An integer from 0 to `most`; reports anything else.
std::optional<std::size_t> read_count(const toml::node& value, std::string_view key, std::size_t most,
                                      Diagnostics& diags);

// An array of non-empty strings. Bad elements are reported and left out.
std::vector<Located> read_string_list(const toml::node& value, std::string_view key, Diagnostics& diags);

// The strings alone, without where they were written.
std::vector<std::string> texts(std::vector<Located> located);

// An array of tables ("[[name]]" in TOML, or an inline array of inline tables). An empty array is
// fine; anything else is reported and gives nothing.
std::vector<const toml::table*> read_table_list(const toml::node& value, std::string_view key,
                                                std::string_view header, Diagnostics& diags);

// read_string_list, plus the define and option rules of checks.hpp. Rejected entries are left out.
std::vector<std::string> read_defines(const toml::node& value, std::string_view key, Diagnostics& diags);
// A --pre-include names its header as #include would, or by an absolute path inside `root` (the
// manifest's directory); one that leaves them (an absolute path elsewhere, a '..') is refused: a
// header elsewhere needs its directory in include_dirs.
std::vector<std::string> read_options(const toml::node& value, std::string_view key, const std::filesystem::path& root,
                                      Diagnostics& diags);
// read_string_list of include directories, each checked (paths.hpp: check_include_dir) and normalized;
// one listed twice in the same list is reported. Rejected entries are left out.
std::vector<std::string> read_include_dirs(const toml::node& value, const std::filesystem::path& root,
                                           Diagnostics& diags);

}  // namespace kiln::manifest::detail
