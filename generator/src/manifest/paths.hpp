// Paths named in a manifest: checked against the file system and stored relative to the manifest
// directory, '/'-separated and lexically normal, so packages built from the same tree are identical
// wherever the tree lives. Internal to kiln_manifest.
#pragma once

#include "manifest/diagnostics.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::manifest::detail {

// "./a//b/../c/" -> "a/c"; "." for the directory itself. Leading ".." segments are kept.
std::string normalize_relative(std::string_view path);

// A source path: relative, inside `root`, naming a regular file. Returns its normalized form.
// `what` starts each message: "source path", "host source path".
std::optional<std::string> check_source_path(const Located& path, const std::filesystem::path& root,
                                             Diagnostics& diags, std::string_view what = "source path");

// An include directory: "<cuda>", "<build>" or "<kiln>", alone or followed by "/..." (the toolkit, the
// build directory, Kiln's include directory: known when building), or a directory relative to `root`,
// which may lie outside it ("../common/include"). Returns its normalized form.
std::optional<std::string> check_include_dir(const Located& dir, const std::filesystem::path& root,
                                             Diagnostics& diags);

}  // namespace kiln::manifest::detail
