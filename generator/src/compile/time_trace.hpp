// NVRTC 13 has no -M; its --fdevice-time-trace file records a "Processing Header File" event for
// every header it opens: the exact set a depfile and a content hash need (scanner-notes.md).
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::compile {

// The trace file NVRTC writes for `-fdevice-time-trace=<requested>` (it appends ".json").
std::filesystem::path trace_output_path(const std::filesystem::path& requested);

// Headers named by the trace, in first-seen order, without NVRTC's virtual builtin header.
Result<std::vector<std::string>> headers_from_trace(const std::string& trace_json);

}  // namespace kiln::compile
