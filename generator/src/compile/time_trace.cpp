#include "compile/time_trace.hpp"

#include <nlohmann/json.hpp>

#include <set>

namespace kiln::compile {

std::filesystem::path trace_output_path(const std::filesystem::path& requested) {
  return std::filesystem::path(requested.string() + ".json");
}

Result<std::vector<std::string>> headers_from_trace(const std::string& trace_json) {
  const nlohmann::json trace = nlohmann::json::parse(trace_json, nullptr, /*allow_exceptions=*/false);
  if (trace.is_discarded() || !trace.is_object() || !trace.contains("traceEvents") ||
      !trace["traceEvents"].is_array())
    return Error{"NVRTC's time trace is not the JSON Kiln expects"};
  std::vector<std::string> headers;
  std::set<std::string> seen;
  for (const auto& event : trace["traceEvents"]) {
    if (!event.is_object() || event.value("name", "") != "Processing Header File") continue;
    const auto args = event.find("args");
    if (args == event.end() || !args->is_object()) continue;
    const std::string detail = args->value("detail", "");
    if (detail.empty() || detail == "__nv_nvrtc_builtin_header.h") continue;
    if (seen.insert(detail).second) headers.push_back(detail);
  }
  return headers;
}

}  // namespace kiln::compile
