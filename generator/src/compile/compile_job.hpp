// One compile: a source for one target, and what came of it. Plain data, passed between the build
// (parent) and its worker processes, so it serializes to bytes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace kiln::compile {

struct CompileJob {
  std::filesystem::path root;                  // manifest directory; the worker runs here
  std::string source;                          // relative to root: the NVRTC program name
  std::string display_prefix;                  // prepended to root-relative paths in messages
  std::string manifest_location;               // "kiln.toml:7": where the source's entry is, for messages
  std::string target;                          // "sm_90a", "compute_75"
  std::vector<std::string> name_expressions;   // kernels to instantiate: "block_sum<float, 256>"
  std::vector<std::string> variables;          // variables to keep: "coeffs" (asked as "&coeffs")
  std::vector<std::string> nvrtc_options;      // -I, -D and user options, in order
  std::vector<std::string> link_options;       // user options nvJitLink needs too (-lineinfo, -ftz=...)
  std::filesystem::path trace_file;            // where NVRTC writes its time trace (absolute)
};

struct LoweredName {
  std::string expression;                      // as asked: "block_sum<float, 256>" or "&coeffs"
  std::string lowered;                         // "_Z9block_sumIfLi256EEvPKT_PS0_i", "coeffs"
};

struct CompileOutput {
  bool ok = false;
  std::string log;                             // diagnostics with display paths; warnings on success
  std::vector<std::byte> image;                // cubin, or PTX with its terminating NUL
  std::vector<LoweredName> lowered_names;
  std::vector<std::string> headers;            // every header NVRTC opened, as it named them
  double seconds = 0;
};

std::vector<std::byte> serialize(const CompileOutput& output);
// Returns false if `bytes` is not a complete serialized CompileOutput.
bool deserialize(const std::vector<std::byte>& bytes, CompileOutput& output);

}  // namespace kiln::compile
