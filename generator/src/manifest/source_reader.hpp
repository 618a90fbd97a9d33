// One [[source]] table: the file to compile and what to build from it. Internal to kiln_manifest.
#pragma once

#include "manifest/diagnostics.hpp"
#include "manifest/manifest.hpp"

#include <toml++/toml.h>

#include <filesystem>

namespace kiln::manifest::detail {

// Reads `table` into a SourceEntry, checking its path against `root`. Errors go to `diags`; the entry
// is only meaningful when there are none. An empty `path` in the result means it was unusable.
SourceEntry read_source(const toml::table& table, const std::filesystem::path& root, Diagnostics& diags);

}  // namespace kiln::manifest::detail
