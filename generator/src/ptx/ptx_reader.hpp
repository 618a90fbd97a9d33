// Reads kernel entries and their parameter layout from PTX text, for packages whose units have
// PTX images only (no cubin to read .nv.info from).
#pragma once

#include "format/layout.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::image {

struct PtxEntry {
  std::string name;                         // lowered name after ".entry"
  std::vector<format::ParamRecord> params;  // offsets follow each .param's size and .align
  bool is_weak = false;                     // ".weak .entry": a template instantiation
};

// A module-scope .global or .const definition (.extern declarations are left out). Internal ones
// (no .visible: `static __device__` variables, printf's $str) are listed too, with visible false.
struct PtxVariable {
  std::string name;
  format::VariableKind kind = format::VariableKind::device;  // constant for .const; managed for
                                                            // .attribute(.managed)
  std::uint64_t size = 0;                   // bytes; an unsized [] array counts its initializer
  bool visible = false;                     // .visible or .weak
};

struct PtxInfo {
  std::string version;                      // ".version 9.0" -> "9.0"
  std::string target;                       // ".target sm_90a" -> "sm_90a"
  std::vector<PtxEntry> entries;
  std::vector<std::string> variables;       // names of variable_declarations, in the same order
  std::vector<PtxVariable> variable_declarations;  // the same variables with kind and size
};

// Fails with "label:line: message" on text that is not PTX as far as this reader goes: directives
// at module scope, entry headers and variable declarations are checked; instruction bodies only
// for balanced braces. A trailing NUL (nvJitLink output) is allowed.
Result<PtxInfo> read_ptx(std::string_view ptx, const std::string& label);

}  // namespace kiln::image
