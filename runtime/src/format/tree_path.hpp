// The one rule for paths inside a carried source tree (CARRIED_ENTRIES): relative, '/'-separated, no
// empty, "." or ".." part and no '\', so that the runtime can lay any of them out under a directory
// of its own and none escapes it. The writer, `kiln verify` and the runtime's tree check the same.
#pragma once

#include <string_view>

namespace kiln::format {

bool is_tree_path(std::string_view path);

}  // namespace kiln::format
