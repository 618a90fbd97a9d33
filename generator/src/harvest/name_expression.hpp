// Whether a name a harvest record gives is one kiln harvest may put in a manifest, from where a build
// pastes it into the unit nvcc compiles ("(void*)&<name>,", compile/nvcc_compiler.cpp): records are
// data from a cache, which may be shared, and a name must not carry code into the user's package.
#pragma once

#include <string_view>

namespace kiln::harvest {

// A kernel template's name expression as the runtime is asked for one: a qualified name
// ("ops::scale", a leading "::" allowed), then at most one template argument list, which runs to the
// end and whose (), [] and <> balance ('<' and '>' inside parentheses are comparisons). Nothing in it
// can end the expression or start anything else: no ';', '{', '}', '"', '#', '\', '%' (the digraphs
// "<%", "%>" and "%:"), "??" (a trigraph), comment or control character.
bool is_name_expression(std::string_view text);

}  // namespace kiln::harvest
