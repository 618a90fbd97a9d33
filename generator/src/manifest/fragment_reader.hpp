// Manifest fragments (`kiln build --add FILE`, written by `kiln harvest`): [[source]] tables of
// `path` and `instantiate` only, whose names join the instantiations of the manifest's source of the
// same path. Paths are relative to the manifest's directory (its root), not the fragment's, so that a
// fragment written anywhere names the manifest's sources as the manifest does.
#pragma once

#include "manifest/manifest.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string_view>

namespace kiln::manifest {

// Adds the fragment at `path` to `manifest`. Every problem is an error naming the fragment, its line
// and column: an unknown key, a path the manifest has no [[source]] for, a value of the wrong type.
// A name the source lists already is left out; an added name is placed, for messages, at its
// source's [[source]] entry. Nothing is added when there is an error.
Status add_fragment(Manifest& manifest, const std::filesystem::path& path);
Status add_fragment_text(Manifest& manifest, std::string_view text, const std::filesystem::path& path);

}  // namespace kiln::manifest
