// `kiln harvest`'s writing half: harvested names as TOML text, either a fragment of [[source]]
// entries (for `kiln build --add`) or the manifest itself with the names added in place (`--write`).
#pragma once

#include "harvest/harvested_names.hpp"
#include "util/result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace kiln::harvest {

// A TOML basic string: quoted, with '"', '\\' and control characters escaped.
std::string toml_string(std::string_view text);
// "# from CACHE, sm_80, sm_90; CACHE2, sm_90": where a name came from, as one comment line.
std::string origin_comment(const HarvestedName& name);

// The fragment: a header naming the manifest, then one [[source]] per source with its names, each
// after its origin comment. With no names, the header alone (a valid, empty fragment).
std::string fragment_text(const std::vector<HarvestedName>& names, std::string_view manifest);

}  // namespace kiln::harvest
