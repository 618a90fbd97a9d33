#include "manifest/manifest_reader.hpp"

#include "format/names.hpp"
#include "manifest/checks.hpp"
#include "manifest/diagnostics.hpp"
#include "manifest/fields.hpp"
#include "manifest/paths.hpp"
#include "manifest/source_reader.hpp"
#include "util/file_io.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::manifest {
namespace {

namespace fs = std::filesystem;
using detail::Diagnostics;
using detail::Located;
using detail::quote;

constexpr std::array<std::string_view, 16> k_top_level_keys = {
    "name",     "targets", "include_dirs", "defines",        "options",                 "toolkit_includes",
    "compress", "source",  "host_sources", "python_sources", "remove_unused_variables", "carry_sources",
    "kernels_per_image", "instantiate", "variables", "cmake_call"};
constexpr std::array<std::string_view, 2> k_source_only = {"path", "template"};

// The directory name a package is called by default. absolute() first so "kiln.toml" and
// "./kiln.toml" name the current directory rather than nothing.
std::string directory_name(const fs::path& manifest) {
  std::error_code error;
  const fs::path absolute = fs::absolute(manifest, error);
  return error ? std::string() : absolute.lexically_normal().parent_path().filename().string();
}

std::vector<std::string> read_targets(const toml::node& node, std::vector<Position>& positions, Diagnostics& diags) {
  std::vector<std::string> targets;
  detail::FirstSeen seen;
  for (const Located& target : detail::read_string_list(node, "targets", diags)) {
    const std::optional<std::string> canonical = detail::canonical_target(target.text);
    if (!canonical) {
      diags.error(target.at(), "invalid target " + quote(target.text) + " in 'targets'" +
                                   detail::did_you_mean_target(target.text) + ": expected " +
                                   std::string(detail::k_accepted_targets));
      continue;
    }
    if (const std::optional<int> first = seen.add(*canonical, target.line)) {
      diags.error(target.at(), "target " + quote(target.text) + " is listed twice in 'targets'" +
                                   detail::FirstSeen::note(*first));
      continue;
    }
    targets.push_back(*canonical);
    positions.push_back(target.at());
  }
  return targets;
}

// Variants and link groups name units of the package, as sources' paths do: no name may mean two.
void check_unit_names(const std::vector<SourceEntry>& sources, Diagnostics& diags) {
  std::map<std::string, int> variants;   // name -> line of its entry
  for (const SourceEntry& entry : sources) {
    if (entry.variant.empty()) continue;
    const auto [it, inserted] = variants.emplace(entry.variant, entry.line);
    if (!inserted)
      diags.error(entry.variant_position, "variant " + quote(entry.variant) + " is named twice" +
                                              detail::FirstSeen::note(it->second));
  }
  for (const SourceEntry& entry : sources) {
    if (variants.count(entry.path))
      diags.error(Position{entry.line, entry.column}, "source path " + quote(entry.path) +
                                                          " is also a variant's name; rename the variant");
    if (!entry.link_group.empty() && variants.count(entry.link_group))
      diags.error(entry.link_group_position, "link group " + quote(entry.link_group) +
                                                 " has the name of a variant; units need names of their own");
    if (!entry.link_group.empty() &&
        std::any_of(sources.begin(), sources.end(), [&](const SourceEntry& s) { return s.path == entry.link_group; }))
      diags.error(entry.link_group_position, "link group " + quote(entry.link_group) +
                                                 " has the name of a source path; units need names of their own");
  }
}

std::vector<SourceEntry> read_sources(const toml::table& document, const fs::path& root, Diagnostics& diags) {
  std::vector<SourceEntry> sources;
  const toml::node* node = document.get("source");
  const toml::array* array = node != nullptr ? node->as_array() : nullptr;
  if (node == nullptr || (array != nullptr && array->empty())) {
    diags.error(0, "no [[source]] table: list at least one source file ([[source]] path = \"...\")");
  } else {
    detail::FirstSeen seen;
    for (const toml::table* table : detail::read_table_list(*node, "source", "[[source]]", diags)) {
      SourceEntry entry = detail::read_source(*table, root, diags);
      // Compiling one file twice would give two units defining the same kernels, unless each entry
      // is a variant: a unit of its own whose kernels carry its name.
      if (!entry.path.empty() && entry.variant.empty()) {
        if (const std::optional<int> first = seen.add(entry.path, entry.line)) {
          diags.error(Position{entry.line, entry.column},
                      "source " + quote(entry.path) + " is listed twice" + detail::FirstSeen::note(*first) +
                          "; to build it twice, give each entry its own 'variant' name");
        }
      }
      sources.push_back(std::move(entry));
    }
    check_unit_names(sources, diags);
  }
  return sources;
}

// Files scanned only for runtime requests: host_sources (C, C++, CUDA host code) and python_sources.
// They follow the source path rules. One that is also a [[source]] is refused: kernel sources are
// scanned for runtime requests already, and scanning a file twice could only disagree.
struct ScannedFileKey {
  std::string_view key;        // "host_sources"
  std::string_view noun;       // "host source"
};

std::vector<std::string> read_scanned_files(const toml::node& node, const ScannedFileKey& what, const fs::path& root,
                                            const std::vector<SourceEntry>& sources, Diagnostics& diags) {
  const std::string noun(what.noun);
  std::vector<std::string> paths;
  detail::FirstSeen seen;
  for (const Located& path : detail::read_string_list(node, what.key, diags)) {
    std::optional<std::string> normal = detail::check_source_path(path, root, diags, noun + " path");
    if (!normal) continue;
    if (const std::optional<int> first = seen.add(*normal, path.line)) {
      diags.error(path.at(), noun + " " + quote(*normal) + " is listed twice" + detail::FirstSeen::note(*first));
      continue;
    }
    const auto source = std::find_if(sources.begin(), sources.end(),
                                     [&](const SourceEntry& s) { return s.path == *normal; });
    if (source != sources.end()) {
      diags.error(path.at(), noun + " " + quote(*normal) + " is also a [[source]] (line " +
                                 std::to_string(source->line) + "); kernel sources are scanned for runtime "
                                 "requests already");
      continue;
    }
    paths.push_back(std::move(*normal));
  }
  return paths;
}

// Top-level 'instantiate' or 'variables': names for the package, each listed once (compared
// normalized, as a [[source]]'s are).
void read_package_names(const toml::node& node, std::string_view key, std::vector<std::string>& names,
                        std::vector<Position>& positions, Diagnostics& diags) {
  detail::FirstSeen seen;
  for (const Located& name : detail::read_string_list(node, key, diags)) {
    if (const std::optional<int> first = seen.add(format::normalize_name(name.text), name.line)) {
      diags.error(name.at(), quote(name.text) + " is listed twice in " + quote(std::string(key)) +
                                 detail::FirstSeen::note(*first));
      continue;
    }
    names.push_back(name.text);
    positions.push_back(name.at());
  }
}

// 'cmake_call' = "CMakeLists.txt:12" (or the file alone): where kiln_add_cache() was called.
std::optional<CMakeCall> read_cmake_call(const toml::node& node, Diagnostics& diags) {
  const std::optional<std::string> text = detail::read_string(node, "cmake_call", diags);
  if (!text) return std::nullopt;
  CMakeCall call{*text, 0};
  const std::size_t colon = text->rfind(':');
  if (colon != std::string::npos && colon + 1 < text->size() &&
      std::all_of(text->begin() + static_cast<std::ptrdiff_t>(colon) + 1, text->end(),
                  [](char c) { return c >= '0' && c <= '9'; }) &&
      text->size() - colon - 1 <= 9) {
    call.file = text->substr(0, colon);
    call.line = std::stoi(text->substr(colon + 1));
  }
  if (call.file.empty()) {
    diags.error(detail::position_of(node), "'cmake_call' " + quote(*text) + " names no file: expected \"<file>:<line>\"");
    return std::nullopt;
  }
  return call;
}

// CMake's names for the keys kiln_add_cache() writes: its keywords for the top level, the source
// properties for a [[source]]'s.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> k_call_keywords = {{
    {"targets", "TARGETS"}, {"include_dirs", "INCLUDE_DIRECTORIES"}, {"defines", "DEFINES"}, {"options", "OPTIONS"},
    {"instantiate", "INSTANTIATE"}, {"variables", "VARIABLES"}, {"kernels_per_image", "KERNELS_PER_IMAGE"}}};
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> k_property_keywords = {{
    {"defines", "KILN_DEFINES"}, {"options", "KILN_OPTIONS"}, {"instantiate", "KILN_INSTANTIATE"},
    {"variables", "KILN_VARIABLES"}, {"link_group", "KILN_LINK_GROUP"}}};

bool holds(const toml::node& node, int line, int column) {
  const toml::source_region& r = node.source();
  const auto before = [](int l1, int c1, int l2, int c2) { return l1 < l2 || (l1 == l2 && c1 <= c2); };
  return before(static_cast<int>(r.begin.line), static_cast<int>(r.begin.column), line, column) &&
         before(line, column, static_cast<int>(r.end.line), static_cast<int>(r.end.column));
}

// The keyword of the key of `table` whose value holds (line, column), if `keywords` names one.
template <std::size_t N>
std::optional<std::pair<std::string, std::string>> keyword_at(
    const toml::table& table, const std::array<std::pair<std::string_view, std::string_view>, N>& keywords, int line,
    int column) {
  for (const auto& [key, node] : table)
    for (const auto& [name, keyword] : keywords)
      if (key.str() == name && holds(node, line, column)) return std::pair(std::string(name), std::string(keyword));
  return std::nullopt;
}

// A generated manifest's errors in values the kiln_add_cache() call gave, said at the call ("the file
// as seen from here:line") under CMake's keyword: "OPTIONS of cache 'k': option '-O3' in OPTIONS is ...".
// The manifest's own lines mean nothing to the call's author, so a "(first at line N)" note goes.
void move_to_the_call(Diagnostics& diags, const toml::table& document, const Manifest& manifest) {
  const CMakeCall& call = *manifest.cmake_call;
  std::error_code error;
  const fs::path file = fs::absolute(manifest.root / call.file, error).lexically_normal();
  const fs::path shown = error ? fs::path(call.file) : file.lexically_relative(fs::current_path(error));
  const std::string where = (shown.empty() || error ? fs::path(call.file) : shown).generic_string();
  const toml::array* sources = document.get("source") != nullptr ? document.get("source")->as_array() : nullptr;
  diags.move_errors([&](int line, int column, const std::string& message) -> std::optional<Diagnostics::Moved> {
    std::optional<std::pair<std::string, std::string>> found = keyword_at(document, k_call_keywords, line, column);
    std::string subject = found ? found->second + " of cache '" + manifest.name + "'" : std::string();
    for (std::size_t i = 0; !found && sources != nullptr && i < sources->size(); ++i) {
      const toml::table* table = sources->get(i)->as_table();
      if (table == nullptr || !(found = keyword_at(*table, k_property_keywords, line, column))) continue;
      const std::string path = i < manifest.sources.size() ? manifest.sources[i].path : std::string();
      subject = "source property " + found->second + " of '" + path + "' (cache '" + manifest.name + "')";
    }
    if (!found) return std::nullopt;
    std::string text = message;
    for (std::size_t at = text.find(quote(found->first)); at != std::string::npos; at = text.find(quote(found->first)))
      text.replace(at, found->first.size() + 2, found->second);
    if (found->first != "targets")   // "list targets in 'targets'": the call's TARGETS or ARCHITECTURES
      for (std::size_t at = text.find("'targets'"); at != std::string::npos; at = text.find("'targets'"))
        text.replace(at, 9, "TARGETS or ARCHITECTURES");
    if (const std::size_t note = text.find(" (first at line "); note != std::string::npos)
      text.erase(note, text.find(')', note) + 1 - note);
    return Diagnostics::Moved{where, call.line, subject + ": " + text};
  });
}

}  // namespace

Result<Manifest> read_manifest(const fs::path& path, const fs::path& root) {
  // A FIFO or a device is refused, not waited on (read_binary_file reads regular files only).
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return std::move(bytes).error();
  return parse_manifest(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path, root);
}

Result<Manifest> parse_manifest(std::string_view text, const fs::path& path, const fs::path& root) {
  Diagnostics diags(path.string());
  std::optional<toml::table> parsed = detail::parse_document(text, path, diags);
  if (!parsed) return diags.to_error();
  toml::table& document = *parsed;

  Manifest manifest;
  manifest.path = path;
  manifest.root = !root.empty() ? root : path.has_parent_path() ? path.parent_path() : fs::path(".");

  detail::check_keys(
      document, detail::KeyRules{"", k_top_level_keys, k_source_only, "it belongs in a [[source]] table"},
      diags);
  if (const toml::node* name = document.get("name")) {
    manifest.name = detail::read_string(*name, "name", diags).value_or("");
    if (Status s = detail::check_package_name(manifest.name); !s && !manifest.name.empty())
      diags.error(detail::position_of(*name), "package name " + quote(manifest.name) + " " + s.error().message);
  } else {
    manifest.name = directory_name(path);
    if (manifest.name.empty()) diags.error(0, "cannot name the package after its directory; set 'name'");
    else if (Status s = detail::check_package_name(manifest.name); !s)
      diags.error(0, "the package is named after its directory, and " + quote(manifest.name) + " " +
                         s.error().message + "; set 'name'");
  }
  if (const toml::node* node = document.get("targets")) manifest.targets = read_targets(*node, manifest.target_positions, diags);
  if (const toml::node* node = document.get("include_dirs")) {
    manifest.include_dirs = detail::read_include_dirs(*node, manifest.root, diags);
  }
  if (const toml::node* node = document.get("defines")) {
    manifest.defines = detail::read_defines(*node, "defines", diags);
  }
  if (const toml::node* node = document.get("options")) {
    manifest.options = detail::read_options(*node, "options", manifest.root, diags);
  }
  if (const toml::node* node = document.get("toolkit_includes")) {
    manifest.toolkit_includes = detail::read_bool(*node, "toolkit_includes", diags).value_or(true);
  }
  if (const toml::node* node = document.get("compress")) {
    manifest.compress = detail::read_bool(*node, "compress", diags).value_or(false);
  }
  if (const toml::node* node = document.get("remove_unused_variables")) {
    manifest.remove_unused_variables = detail::read_bool(*node, "remove_unused_variables", diags).value_or(false);
  }
  if (const toml::node* node = document.get("carry_sources")) {
    manifest.carry_sources = detail::read_bool(*node, "carry_sources", diags).value_or(false);
  }
  if (const toml::node* node = document.get("kernels_per_image")) {
    manifest.kernels_per_image = detail::read_count(*node, "kernels_per_image", k_most_kernels_per_image, diags)
                                     .value_or(k_default_kernels_per_image);
  }
  manifest.sources = read_sources(document, manifest.root, diags);
  // A source's directory that the top-level list already has is searched there, earlier: once more
  // after it would find nothing new, so it is dropped rather than refused (a CMake project may give
  // a directory both to the call and to one source).
  for (SourceEntry& source : manifest.sources)
    std::erase_if(source.include_dirs, [&](const std::string& dir) {
      return std::find(manifest.include_dirs.begin(), manifest.include_dirs.end(), dir) != manifest.include_dirs.end();
    });
  if (const toml::node* node = document.get("instantiate"))
    read_package_names(*node, "instantiate", manifest.instantiations, manifest.instantiation_positions, diags);
  if (const toml::node* node = document.get("variables"))
    read_package_names(*node, "variables", manifest.variables, manifest.variable_positions, diags);
  if (const toml::node* node = document.get("cmake_call")) manifest.cmake_call = read_cmake_call(*node, diags);
  if (const toml::node* node = document.get("host_sources")) {
    manifest.host_sources =
        read_scanned_files(*node, {"host_sources", "host source"}, manifest.root, manifest.sources, diags);
  }
  if (const toml::node* node = document.get("python_sources")) {
    manifest.python_sources =
        read_scanned_files(*node, {"python_sources", "Python source"}, manifest.root, manifest.sources, diags);
    for (const std::string& file : manifest.python_sources)
      if (std::find(manifest.host_sources.begin(), manifest.host_sources.end(), file) != manifest.host_sources.end())
        diags.error(detail::position_of(*node), "Python source " + quote(file) + " is also in 'host_sources', "
                                            "whose files are parsed as C or C++");
  }

  if (diags.has_errors() && manifest.cmake_call) move_to_the_call(diags, document, manifest);
  if (diags.has_errors()) return diags.to_error();
  return manifest;
}

}  // namespace kiln::manifest
