// One [[source.template]] table: a kernel pattern and a list of values per placeholder, expanded into
// the name expressions of their cross product. Internal to kiln_manifest.
#pragma once

#include "manifest/diagnostics.hpp"
#include "manifest/fields.hpp"

#include <toml++/toml.h>

#include <cstddef>
#include <vector>

namespace kiln::manifest::detail {

// A bound on one template's expansions: a typo such as a list pasted twice must fail with a message,
// not exhaust memory or produce a package nobody wants.
inline constexpr std::size_t k_max_template_expansions = 10000;

// The expressions `table` expands to, placeholders taken in the order they first appear in the
// pattern, each with the line of the 'kernel' key. Nothing if the table has errors.
std::vector<Located> read_template(const toml::table& table, Diagnostics& diags);

}  // namespace kiln::manifest::detail
