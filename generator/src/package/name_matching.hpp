// Which symbol of an nvcc-compiled image a name expression means. NVRTC answers that itself
// (nvrtcGetLoweredName); nvcc does not, so its symbols are demangled (canonical_kernel_name) and
// compared with the expression. Never through clang's mangler: it differs from NVCC's for internal
// linkage (scanner-notes.md).
//
// Two spellings of one name differ in more than whitespace: clang writes "const float *" and
// "256U" where the demangler writes "float const*" and "256u", a user may write "unsigned" or
// "0x100". comparable_name() rewrites both sides to one form; where that is not enough (a request
// written "k<256u>" for an int parameter, an unnamed namespace the expression leaves out), a loose
// comparison decides, and only when exactly one symbol matches.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::package {

enum class MatchLevel {
  // Whitespace, integer literal spelling (0x10 -> 16, 256U -> 256u), builtin type spelling
  // ("unsigned" -> "unsigned int", "long int" -> "long"), "const T" -> "T const", a leading "::",
  // nvcc's _INTERNAL_xxx:: prefix.
  exact,
  // Also drops integer suffixes, casts to builtin types ("(char)97" -> "97", 'a' -> "97") and
  // "(anonymous namespace)::".
  loose,
};

std::string comparable_name(std::string_view name, MatchLevel level);

struct SymbolName {
  std::string lowered;     // the symbol: "_Z6ublockIfLj256EEvPT_"
  std::string demangled;   // canonical_kernel_name(lowered): "ublock<float, 256u>"
};

// The lowered name of the one symbol `expression` names: the only exact match, else the only loose
// one. Nothing when no symbol or several symbols match. A leading '&' (variables) is ignored.
std::optional<std::string> match_symbol(std::string_view expression, const std::vector<SymbolName>& symbols);

// The lowered name of the one symbol that is `mangled` (clang's mangling of the specialization a
// request resolved to), else the one whose demangled name equals the demangled `mangled`: clang's
// and nvcc's manglings differ only where nvcc names an internal-linkage entity after its module,
// which the demangler prints alike ("(anonymous namespace)::k"). Both sides go through the same
// demangler, so no spelling is rewritten. Nothing when `mangled` is empty or no single symbol matches.
std::optional<std::string> match_mangled(std::string_view mangled, const std::vector<SymbolName>& symbols);

}  // namespace kiln::package
