// `kiln harvest --write`: the harvested names added to the manifest's own text, keeping everything
// the user wrote (comments, order, formatting). Each source's names go at the end of its
// `instantiate` array, or into a new `instantiate` after its `path` line; toml++'s source positions
// say where, and the result is parsed again before it is returned.
#pragma once

#include "harvest/harvested_names.hpp"
#include "util/result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kiln::harvest {

// The manifest text `text` (read from `path`, named in messages) with `names` added. An error when a
// source is an inline table (its entries cannot take a comment per name; use -o and --add), when its
// `instantiate` is not an array, or when the manifest has no [[source]] of a name's path.
Result<std::string> add_to_manifest(std::string_view text, std::string_view path,
                                    const std::vector<HarvestedName>& names);

}  // namespace kiln::harvest
