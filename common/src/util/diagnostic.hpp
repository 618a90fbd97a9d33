// One format for every diagnostic the generator prints, the one compilers and editors use:
// "file:line:col: error: message" (line and column where known), then notes in the same form.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// "kiln.toml:7:18: error: message"; line 0 leaves out line and column, column 0 the column.
std::string diagnostic(std::string_view file, int line, int column, std::string_view severity,
                       std::string_view message);

// Whether `text` is already a diagnostic in that format ("file[:line[:col]]: error: ..." on its
// first line), so that the command line prints it as it is rather than behind "kiln: error: ".
bool is_diagnostic(std::string_view text);

}  // namespace kiln
