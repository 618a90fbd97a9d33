// NVRTC 12 and 13 have no -M; their -fdevice-time-trace file records a "Processing Header File" event
// for every header they open: the exact set a depfile, a content hash and a run-time program's cache
// record need (scanner-notes.md). One reader, for the build's compiles and the run-time ones. The
// compile library builds without a JSON library (a runtime-only tree has none), so it reads the JSON
// itself: all of it, strictly enough to tell a trace from a truncated one.
#pragma once

#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::jit {

// The file NVRTC writes for `-fdevice-time-trace=<requested>`: it appends ".json".
std::string trace_output_path(const std::string& requested);

// The headers a trace names, in first-seen order, without repeats or NVRTC's built-in header; an
// error when the text is not JSON, or not an object with a "traceEvents" array.
Result<std::vector<std::string>> headers_in_time_trace(std::string_view trace);

// A trace larger than this is not read: a compile that opens ten thousand headers writes a few MB.
inline constexpr std::uint64_t k_time_trace_limit = std::uint64_t{64} << 20;

// The headers of the trace NVRTC wrote for `-fdevice-time-trace=<requested>`; an error (what could
// not be read) where there is none to read: not written, not a regular file (a link is not followed),
// larger than k_time_trace_limit, or not a trace. Callers take that as "headers unknown", never as
// "no headers", which a cache would take for "reads none".
Result<std::vector<std::string>> headers_in_trace_file(const std::string& requested);

}  // namespace kiln::jit
