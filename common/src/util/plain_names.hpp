// Names a shell reads as they are. nvcc runs each step of a compile through `sh -c`, splicing paths
// and option values into the command, some bare and some in double quotes: there a name holding
// `$( )`, backticks, `;`, quotes, spaces or `*` is code, not a name. Kiln gives such programs only
// plain names: its own, or ones derived from the user's with every other byte spelt out.
#pragma once

#include <string>
#include <string_view>

namespace kiln {

// Whether every byte of `text` is a letter, a digit or one of `. _ / + -`, so that no shell, quoted
// or not, reads anything into it (an empty text is not plain).
bool is_plain_name(std::string_view text);

// Whether an option's text is plain in the same sense, where '=', ',', ':', '@' and '%' are plain too
// ("--diag-suppress=20012,20013", "-DN=4").
bool is_plain_option(std::string_view text);

// `text` with every byte outside that set (and '@' itself) written as '@' and two hex digits:
// "h $(x).cu" -> "h@20@24@28x@29.cu". A plain name is its own spelling, and two different texts never
// share one, so a value derived from a name (a seed, a module ID, a scratch directory's name) stays
// as unique and as stable across checkouts as the name.
std::string plain_spelling(std::string_view text);

// `path` as a program's operand: a relative path that starts with '-' ("-o.cu", "--config=x/k.cu")
// would be read as an option, so it gets "./" in front; any other path is itself.
std::string file_operand(std::string_view path);

}  // namespace kiln
