// Kiln's JIT-safe standard headers: what lets NVRTC, which has no C or C++ standard library, compile
// a source that includes <limits>, <cmath>, <cstdint>, ... as it does with Jitify's headers. Each one
// names std:: what NVRTC or the toolkit's libcu++ already has for device code (the CUDA math library's
// functions, cuda::std::numeric_limits, ...), or is empty where NVRTC has the name built in (printf,
// assert). They are files in compile/jit_safe/, compiled into kiln as strings.
//
// Only units nvcc cannot compile use them (an option only NVRTC takes: -default-device, which gives
// unannotated functions device semantics): their include path ends with the directory these are
// written to, so a header of the user's with the same name is found first, as it would be before
// the system's under nvcc. Every other device-only source NVRTC rejects goes to nvcc, which reads the
// host compiler's standard library (docs/scan.md, "Standard headers in device-only sources").
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::compile {

struct JitSafeHeader {
  const char* name;   // as #include names it: "limits", "math.h"
  const char* text;
};

const std::vector<JitSafeHeader>& jit_safe_headers();

// A hash of every header's name and text (32 hex digits): what a compile key records for a unit that
// reads them, in place of the directory they are written to.
const std::string& jit_safe_headers_digest();

// Writes the headers into `dir` (created), each atomically: workers of one build may write the same
// directory at once. Files already there with the right text are left alone.
Status write_jit_safe_headers(const std::filesystem::path& dir);

}  // namespace kiln::compile
