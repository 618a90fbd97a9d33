// What kiln's output looks like on a terminal: names' control bytes escaped, and colour for its
// diagnostics, as compilers show them: "error:" red, "warning:" magenta, "note:" cyan, all bold, and
// the location before them bold. `--color=auto|always|never`; auto colours when stderr is a terminal
// and NO_COLOR (https://no-color.org) is unset or empty.
//
// Every message goes to std::cerr or std::cout as plain text; while an OutputLines lives, its stream
// passes each line through printable (util/printable.hpp: a file or kernel name holding ESC [ 31 m
// shows "\x1b[31m") and, on stderr when colour is on, colorize_line on its way out, so no message
// site needs to know about either. (Progress lines are written with fprintf, and escape their own.)
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <iosfwd>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace kiln::cli {

enum class ColorMode { automatic, always, never };

// Whether to colour: `always`/`never` decide; `automatic` colours a terminal unless NO_COLOR is set
// to a non-empty value (`no_color`: its value, or nullptr when unset).
bool use_color(ColorMode mode, bool stderr_is_terminal, const char* no_color);

// `line` (without its newline) with the severity of a diagnostic and its location coloured:
// "file:1:2: error: ...", "kiln: warning: ...", "error: ..."; other lines come back unchanged.
std::string colorize_line(std::string_view line);

// JSON as kiln prints it: indented by 2, every character past ASCII and DEL written as \uXXXX, so
// that it holds no byte the line filter would escape (after which it would not be JSON).
std::string printed_json(const nlohmann::json& value);

// Filters `stream`'s lines from construction to destruction, restoring it after: control bytes
// escaped always, and colour from color(true) on.
class OutputLines {
public:
  explicit OutputLines(std::ostream& stream);
  ~OutputLines();
  OutputLines(const OutputLines&) = delete;
  OutputLines& operator=(const OutputLines&) = delete;

  void color(bool enabled);

private:
  std::ostream& m_stream;
  std::unique_ptr<std::streambuf> m_filter;
  std::streambuf* m_original = nullptr;
};

}  // namespace kiln::cli
