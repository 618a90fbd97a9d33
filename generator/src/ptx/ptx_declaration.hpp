// Parses one PTX declaration far enough to know each declared name's size and alignment:
//
//   .param .u64 .ptr .global .align 8 p        (kernel parameter; the .align after .ptr is the
//   .param .align 8 .b8 big[36]                 pointee's, not the parameter's)
//   .global .attribute(.managed) .align 4 .b8 table[256] = {1, 2, 3}, other[4];
//
// Errors are "LINE: message"; the PTX reader puts the label in front.
#pragma once

#include "ptx/ptx_lexer.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace kiln::image {

struct PtxDeclarator {
  std::string_view name;
  int line = 0;
  std::uint64_t size = 0;        // bytes: element size x vector width x array dimensions
};

struct PtxDeclaration {
  std::string_view space;        // "param", "global", "const", ...
  std::uint64_t alignment = 0;   // the explicit .align, else the natural alignment of the type
  bool managed = false;          // .attribute(.managed)
  bool opaque = false;           // .texref, .samplerref, .surfref: handles, not memory
  std::vector<PtxDeclarator> names;
  PtxToken terminator;           // the `,` `)` or `;` that ended it (consumed)
};

enum class PtxDeclarationMode {
  parameter,   // one name; ends at `,` or `)`; no initializer
  variable,    // `,`-separated names with optional initializers; ends at `;`
};

// `first` is the state-space directive that starts the declaration (".param", ".global").
Result<PtxDeclaration> parse_declaration(PtxLexer& lexer, const PtxToken& first, PtxDeclarationMode mode);

// An error message in the form the PTX reader expects.
Error ptx_error(int line, std::string_view message);

}  // namespace kiln::image
