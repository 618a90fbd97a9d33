// Colour for kiln's diagnostics, as compilers show them on a terminal: "error:" red, "warning:"
// magenta, "note:" cyan, all bold, and the location before them bold. `--color=auto|always|never`;
// auto colours when stderr is a terminal and NO_COLOR (https://no-color.org) is unset or empty.
//
// Every message goes to std::cerr as plain text; while a StderrColor lives, std::cerr passes each line
// through colorize_line on its way out, so no message site needs to know about colour.
#pragma once

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

// Colours std::cerr from construction to destruction (when `enabled`), restoring it after.
class StderrColor {
public:
  explicit StderrColor(bool enabled);
  ~StderrColor();
  StderrColor(const StderrColor&) = delete;
  StderrColor& operator=(const StderrColor&) = delete;

private:
  std::unique_ptr<std::streambuf> m_filter;
  std::streambuf* m_original = nullptr;
};

}  // namespace kiln::cli
