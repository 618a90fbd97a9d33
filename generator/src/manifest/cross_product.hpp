// Placeholder substitution for [[source.template]] patterns. expand_cross_product itself is declared
// in manifest_reader.hpp; this is the part the template reader also needs. Internal to kiln_manifest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln::manifest::detail {

// The identifiers of `pattern` in order of first appearance, each once: the tokens a placeholder can
// replace. "block_sum<T, Tile, 0xB>" gives block_sum, T, Tile (0xB is a number, not an identifier).
std::vector<std::string> identifiers_in(std::string_view pattern);

}  // namespace kiln::manifest::detail
