#include "manifest/fragment_reader.hpp"

#include "format/names.hpp"
#include "manifest/fields.hpp"
#include "manifest/paths.hpp"
#include "util/file_io.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace kiln::manifest {

namespace {

using namespace detail;

constexpr std::array<std::string_view, 1> k_fragment_keys = {"source"};
constexpr std::array<std::string_view, 2> k_fragment_source_keys = {"path", "instantiate"};

// The manifest's first [[source]] of `path` (a variant compiles the same file again: the names go to
// the plain entry, which comes first when there is one).
SourceEntry* source_of(Manifest& manifest, const std::string& path) {
  SourceEntry* found = nullptr;
  for (SourceEntry& entry : manifest.sources) {
    if (entry.path != path) continue;
    if (entry.variant.empty()) return &entry;
    if (!found) found = &entry;
  }
  return found;
}

void add_name(SourceEntry& entry, const std::string& name) {
  const std::string normalized = format::normalize_name(name);
  for (const std::string& listed : entry.instantiations)
    if (format::normalize_name(listed) == normalized) return;
  entry.instantiations.push_back(name);
  entry.instantiation_positions.push_back(Position{entry.line, entry.column});
}

}  // namespace

Status add_fragment(Manifest& manifest, const std::filesystem::path& path) {
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return std::move(bytes).error();
  return add_fragment_text(manifest, std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()),
                           path);
}

Status add_fragment_text(Manifest& manifest, std::string_view text, const std::filesystem::path& path) {
  Diagnostics diags(path.string());
  std::optional<toml::table> parsed = parse_document(text, path, diags);
  if (!parsed) return diags.to_error();
  toml::table& document = *parsed;
  check_keys(document, KeyRules{"a manifest fragment", k_fragment_keys, {}, {}}, diags);
  std::vector<std::pair<SourceEntry*, std::vector<std::string>>> additions;
  if (const toml::node* sources = document.get("source")) {
    for (const toml::table* table : read_table_list(*sources, "source", "[[source]]", diags)) {
      check_keys(*table, KeyRules{"[[source]] of a manifest fragment", k_fragment_source_keys, {}, {}}, diags);
      const toml::node* path_node = table->get("path");
      if (!path_node) {
        diags.error(position_of(*table), "[[source]] has no 'path'");
        continue;
      }
      const std::optional<std::string> given = read_string(*path_node, "path", diags);
      if (!given) continue;
      const Located located{*given, line_of(*path_node), position_of(*path_node).column};
      const std::optional<std::string> normal = check_source_path(located, manifest.root, diags);
      if (!normal) continue;
      SourceEntry* entry = source_of(manifest, *normal);
      if (!entry) {
        diags.error(located.at(), "source path " + quote(*normal) + " is not a [[source]] of " +
                                      manifest.path.string() + " (a fragment only adds names to the manifest's "
                                      "sources; paths are relative to the manifest's directory)");
        continue;
      }
      std::vector<std::string> names;
      if (const toml::node* instantiate = table->get("instantiate"))
        names = texts(read_string_list(*instantiate, "instantiate", diags));
      additions.emplace_back(entry, std::move(names));
    }
  }
  if (diags.has_errors()) return diags.to_error();
  for (auto& [entry, names] : additions)
    for (const std::string& name : names) add_name(*entry, name);
  return {};
}

}  // namespace kiln::manifest
