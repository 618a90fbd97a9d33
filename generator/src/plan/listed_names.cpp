#include "plan/listed_names.hpp"

#include "util/diagnostic.hpp"

#include <filesystem>

namespace kiln::plan {

namespace fs = std::filesystem;

std::string manifest_file_of(const manifest::Manifest& manifest) {
  const fs::path root = fs::absolute(manifest.root).lexically_normal();
  const fs::path path = fs::absolute(manifest.path).lexically_normal();
  const fs::path in_root = path.lexically_relative(root);
  return !in_root.empty() && *in_root.begin() != ".." ? in_root.generic_string() : path.string();
}

compile::Origin listed_origin(const manifest::Manifest& manifest, NameList list, const manifest::SourceEntry* source,
                              const std::string& name, manifest::Position at) {
  if (!manifest.cmake_call) return {manifest_file_of(manifest), at.line, at.column};
  // The call gave the whole list: it is the place, and CMake's keyword says which list.
  const std::string cache = "cache '" + manifest.name + "'";
  std::string of_source;
  if (source != nullptr)
    of_source = " of source '" + source->path + "'" + (source->variant.empty() ? "" : ", variant '" + source->variant + "'") +
                " (" + cache + ")";
  std::string label;
  switch (list) {
    case NameList::instantiate: label = "INSTANTIATE '" + name + "' of " + cache; break;
    case NameList::variables: label = "VARIABLES '" + name + "' of " + cache; break;
    case NameList::source_instantiate: label = "KILN_INSTANTIATE '" + name + "'" + of_source; break;
    case NameList::source_variables: label = "KILN_VARIABLES '" + name + "'" + of_source; break;
  }
  return {manifest.cmake_call->file, manifest.cmake_call->line, 0, std::move(label)};
}

Location shown_origin(const compile::Origin& origin, std::string_view display_prefix) {
  const std::string file = (origin.file.starts_with('/') ? std::string() : std::string(display_prefix)) + origin.file;
  return place(file, origin.line, origin.column > 0 ? origin.column + 1 : 0);
}

std::string listed_subject(const compile::Origin& origin, NameList list, const std::string& name) {
  if (!origin.label.empty()) return origin.label;
  switch (list) {
    case NameList::instantiate: return "'instantiate' entry '" + name + "'";
    case NameList::variables: return "'variables' entry '" + name + "'";
    case NameList::source_instantiate: return "name expression '" + name + "'";
    case NameList::source_variables: return "variable '" + name + "'";
  }
  return "'" + name + "'";
}

}  // namespace kiln::plan
