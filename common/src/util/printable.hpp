// Text as it may reach a terminal: a file, kernel or unit name is data, and one that holds a
// terminal's control bytes (ESC [ 31 m, a carriage return, a backspace) must not recolour, move or
// rewrite what the user sees. Kiln's messages pass through here where they leave it: the runtime's
// last error and log lines, and the generator's stderr and stdout.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

enum class NewLines { keep, escape };

// `text` with every control byte written as \xNN ("\x1b[31m" for ESC [ 31 m): the C0 controls
// (0x00-0x1f) but tab, and line feed unless `new_lines` is escape; DEL (0x7f); and the C1 controls
// U+0080-U+009F as UTF-8 writes them (0xc2 0x80-0x9f, both bytes), which some terminals obey as
// ESC-sequences; and every byte that is no part of well-formed UTF-8 (a lone 0x9b is CSI to a
// terminal that reads bytes as Latin-1). A tab only moves the cursor forward, and a line feed
// separates the lines of a multi-line message (a JIT log, a list of places looked): neither can
// hide or rewrite text that was already shown. Everything else, other UTF-8 included, is left as it
// is; a backslash too, so "\x1b" in a message may have been those four characters in the name.
std::string printable(std::string_view text, NewLines new_lines = NewLines::keep);

}  // namespace kiln
