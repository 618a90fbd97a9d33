// ScanResult as JSON: what `kiln scan --json` prints for each file and what the scan cache stores.
// Key names and enum strings are written to disk and read by scripts: never rename them, only add.
//
//   {
//     "kernels": [{"qualified_name": "reduce::block_sum",
//                  "parameters": [{"name": "in", "type": "const float *"}],
//                  "template_parameters": [{"kind": "type" | "non_type" | "template_template",
//                                           "name": "T", "type": "", "pack": false,
//                                           "default": "float"}],        // "default" only if present
//                  "is_template": true, "extern_c": false, "internal_linkage": false,
//                  "defined": true,     // false: only declared here (defined elsewhere), not this file's
//                  "launch_bounds": "256",                               // only if present
//                  "location": {"file": "k.cu", "line": 3, "column": 17}}],
//     "instantiations": [{"kernel": "reduce::block_sum", "name_expression": "reduce::block_sum<float, 256>",
//                         "found_by": "explicit_instantiation" | "explicit_specialization" | "launch"
//                                     | "address_taken" | "runtime_request",
//                         "location": {...},
//                         "symbol_form": "k<(Mode)3>",           // only where it differs
//                         "mangled_name": "_Z1kIL4Mode3EEvv"}],   // clang's; only where clang gave one
//     "requests": [{"what": "kernel" | "variable", "name": "block_sum<float, 256u>", "location": {...}}],
//     "variables": [{"qualified_name": "tables::coeffs", "kind": "device" | "constant" | "managed",
//                    "type": "float[64]", "location": {...}}],
//     "headers": [{"path": "/usr/local/cuda/include/cuda_fp16.h", "hash": "0123456789abcdef"}],
//     "diagnostics": [{"severity": "warning" | "error", "location": {...}, "message": "..."}],
//     "has_host_code": false
//   }
//
// "hash" is the XXH3-64 content hash as 16 lowercase hex digits (JSON numbers lose 64-bit values).
#pragma once

#include "scan/scan_result.hpp"
#include "util/result.hpp"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string_view>

namespace kiln::scan {

nlohmann::json to_json(const ScanResult& result);

// Checks every key and type; the error names the offending field: "kernels[2].location.line: ...".
// Unknown keys are ignored, so newer writers stay readable.
Result<ScanResult> from_json(const nlohmann::json& json);

// The strings used for FoundBy in JSON and in `kiln scan`'s summary.
std::string_view to_string(FoundBy found_by);
std::optional<FoundBy> found_by_from_string(std::string_view text);

}  // namespace kiln::scan
