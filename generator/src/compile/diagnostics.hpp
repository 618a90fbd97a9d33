// NVRTC reports "kernels/a.cu(12): error: ..."; editors and terminals want "path:12: error: ...", with
// the path as the user can open it from where they ran kiln.
#pragma once

#include <string>
#include <string_view>

namespace kiln::compile {

// Rewrites every "file(line): kind" location in `log` to "prefix+file:line: kind" (the prefix only for
// relative files) and the quoted program name in NVRTC's closing line the same way.
std::string rewrite_diagnostics(std::string_view log, std::string_view display_prefix);

// nvcc's host-compiler steps report "file:line:col: error: ..." and "In file included from file:line":
// prefixes those relative files the same way.
std::string prefix_gcc_locations(std::string_view log, std::string_view display_prefix);

// NVRTC (13.0) takes a 0xFF byte for the end of the file, even in a comment: what follows is lost,
// and it says nothing. "where:line: error: ..." for the first one in `source`, or "" when there is
// none. The message holds k_nvrtc_stops_reading, so the unit goes to nvcc, which reads the byte.
std::string find_nvrtc_end_of_file(std::string_view source, std::string_view where);
inline constexpr std::string_view k_nvrtc_stops_reading = "NVRTC stops reading the source there";

}  // namespace kiln::compile
