// NVRTC reports "kernels/a.cu(12): error: ..."; editors and terminals want "path:12:7: error: ...", with
// the path as the user can open it from where they ran kiln.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::compile {

// Rewrites every "file(line): kind" location in `log` to "prefix+file:line:col: kind" (the prefix only
// for relative files) and the quoted program name in NVRTC's closing line the same way. nvcc and
// NVRTC print no column: it is read from the caret under the source line they echo, mapped to the
// line as written in the file (relative files from `root`); where the echo (preprocessed: macros
// expanded, comments gone) cannot be matched to it, or with no `root`, the place has no column.
std::string rewrite_diagnostics(std::string_view log, std::string_view display_prefix,
                                const std::filesystem::path& root = {});

// nvcc's host-compiler steps report "file:line:col: error: ..." and "In file included from file:line":
// prefixes those relative files the same way.
std::string prefix_gcc_locations(std::string_view log, std::string_view display_prefix);

// One line of a compiler's log in the form rewrite_diagnostics leaves ("p/k.cu:12: error: ...",
// "p/k.cu:3:10: fatal error: ..."), read into its place, its severity and its message.
struct LogDiagnostic {
  Location where;
  std::string severity;          // "error", "catastrophic error", "fatal error", "warning", "note", "remark"
  std::string message;           // after the severity and, for NVRTC, its number ("warning #177-D: ")
};
// Nothing if `line` is not such a line (an echo of the source, a caret, a closing count).
std::optional<LogDiagnostic> read_log_line(std::string_view line);

// NVRTC (13.0) takes a 0xFF byte for the end of the file, even in a comment: what follows is lost,
// and it says nothing. Whether NVRTC reads all of `source` (whose file `where` names); if not, the
// error is at the first such byte, and its message holds k_nvrtc_stops_reading, so the unit goes to
// nvcc, which reads the byte.
Status check_nvrtc_reads_all(std::string_view source, const Location& where);
inline constexpr std::string_view k_nvrtc_stops_reading = "NVRTC stops reading the source there";

}  // namespace kiln::compile
