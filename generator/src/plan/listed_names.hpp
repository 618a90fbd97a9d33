// Where a name the manifest lists was written, as the user sees it: its element in kiln.toml, or,
// for a manifest kiln_add_cache() generated ('cmake_call'), the call in CMakeLists.txt, named with
// CMake's keyword for it (INSTANTIATE, KILN_INSTANTIATE). Errors about a listed name (it names
// nothing, it does not compile, it is not in the images) are reported there, once.
#pragma once

#include "compile/compile_job.hpp"
#include "manifest/manifest.hpp"
#include "util/result.hpp"

#include <string>
#include <string_view>

namespace kiln::plan {

// The manifest's list a name is in.
enum class NameList {
  instantiate,          // top level: the package's (kiln_add_cache's INSTANTIATE)
  variables,            // top level (VARIABLES)
  source_instantiate,   // a [[source]]'s (the source property KILN_INSTANTIATE)
  source_variables,     // (KILN_VARIABLES)
};

// The manifest's path as messages name it: relative to its root when inside it, else absolute.
std::string manifest_file_of(const manifest::Manifest& manifest);

// Where `name` (element `at` of `list`; `source` for a [[source]]'s lists) came from. Relative files
// are relative to the manifest's root; a manifest string's column is its opening quote. The label
// is set only for a CMake call: "INSTANTIATE 'scale<float>' of cache 'k'".
compile::Origin listed_origin(const manifest::Manifest& manifest, NameList list, const manifest::SourceEntry* source,
                              const std::string& name, manifest::Position at);

// `origin` as the user opens it from where kiln runs (`display_prefix`: the root as seen from there),
// the column moved past a manifest string's opening quote.
Location shown_origin(const compile::Origin& origin, std::string_view display_prefix);

// "INSTANTIATE 'x' of cache 'k'" for a CMake call, else "'instantiate' entry 'x'": the subject of a
// sentence about the name.
std::string listed_subject(const compile::Origin& origin, NameList list, const std::string& name);

}  // namespace kiln::plan
