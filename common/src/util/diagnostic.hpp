// The one printer of Kiln's errors and warnings, in the format compilers and editors use:
// "file:line:col: error: message" (line and column where known), or "kiln: error: message" when no
// file is at fault. An error's place travels in its Location (util/result.hpp), never in its text:
// nothing reads a printed diagnostic back.
#pragma once

#include "util/result.hpp"

#include <string>
#include <string_view>
#include <utility>

namespace kiln {

// A place in `file` (line and column 0: not known), the kernel and target left unset.
inline Location place(std::string file, int line = 0, int column = 0) {
  Location where;
  where.file = std::move(file);
  where.line = line;
  where.column = column;
  return where;
}

// "kiln.toml:7:18", "kiln.toml:7" or "kiln.toml", for a sentence that names a place (its own place
// goes before the severity, by `diagnostic`).
std::string position_text(const Location& where);

// "kiln.toml:7:18: error: message"; line 0 leaves out line and column, column 0 the column; an empty
// file is "kiln", the command's own voice.
std::string diagnostic(const Location& where, std::string_view severity, std::string_view message);

// `error` as the command prints it: its diagnostic line, then its log (a compiler's output, other
// diagnostics) as it is, on the lines that follow.
std::string diagnostic(const Error& error, std::string_view severity = "error");

}  // namespace kiln
