// Reads and validates kiln.toml. Every error names the file, the line and the key; docs/manifest.md
// lists the keys and the checks.
#pragma once

#include "manifest/manifest.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::manifest {

// Reads the manifest at `path`. Checks keys and types, that every source file exists under the
// manifest directory, that targets parse, and expands template cross products. On failure the Error
// holds every problem found, one "path:line: message" per line, in file order.
// `root`, if not empty, replaces the manifest's directory as the directory that relative paths are
// resolved against (`kiln build --root`: a manifest generated into a build directory that names
// sources in the source tree).
Result<Manifest> read_manifest(const std::filesystem::path& path, const std::filesystem::path& root = {});

// Same, from text already in memory; `path` is used for messages and to resolve relative paths
// (source files and include directories are still checked on disk).
Result<Manifest> parse_manifest(std::string_view text, const std::filesystem::path& path,
                                const std::filesystem::path& root = {});

// Expands "block_sum<T, B>" with T in [float, double] and B in [128, 256] into four expressions,
// substituting whole identifier tokens only, in the order the arguments are listed: the first
// argument varies slowest ("block_sum<float, 128>", "block_sum<float, 256>", "block_sum<double, 128>",
// ...). Values are inserted as they are, never substituted again. An argument with no values gives
// no expressions; no arguments give the pattern itself.
std::vector<std::string> expand_cross_product(
    std::string_view pattern, const std::vector<std::pair<std::string, std::vector<std::string>>>& args);

}  // namespace kiln::manifest
