// Kernel and variable names as keys: the spelling a user writes is normalized so that
// "block_sum<float,256>" and "block_sum< float, 256 >" are one key.
#pragma once

#include <string>
#include <string_view>

namespace kiln::format {

// Removes all whitespace except one space where it separates two identifier characters
// ([A-Za-z0-9_]), as in "unsigned int". "foo<bar<int> >" becomes "foo<bar<int>>".
std::string normalize_name(std::string_view name);

}  // namespace kiln::format
