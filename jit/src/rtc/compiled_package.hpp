// What a run-time compile produced, as a package: one unit, one image for the device's target, the
// kernels under the names they were asked for. A package is what the cache stores (it carries its own
// checksums) and what kiln_program_compile returns, so a compiled kernel loads, launches and reports
// errors exactly as one from a built package does.
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::rtc {

struct CompiledName {
  std::string expression;              // as compiled: "mylib::block_sum<double, 512>", "coeffs"
  std::string lowered;                 // the symbol in the image
  std::vector<std::string> aliases;    // other spellings to find it by: the request as the user wrote it
};

struct CompiledProgram {
  std::string unit;                    // the program's name: the carried source, or kiln_program's name
  std::string target;                  // "sm_90": the device's
  std::vector<std::byte> image;        // a cubin
  std::vector<CompiledName> kernels;
  std::vector<CompiledName> variables;
  std::vector<std::pair<std::string, std::string>> metadata;   // compiler versions, log
};

// The package bytes; parameters and variable kinds and sizes come from the cubin when Kiln can read it.
Result<std::vector<std::byte>> package_compiled(const CompiledProgram& program);

// Whether bytes read back from a cache are a sound package (an entry from a bug or another schema is not).
bool is_compiled_package(const std::vector<std::byte>& bytes);

}  // namespace kiln::rtc
