// One run-time compile through NVRTC and nvJitLink bound by compiler_loader.hpp, the way `kiln build`
// makes a trimmed image (generator/src/compile/nvrtc_compiler.cpp, lto_link.cpp): NVRTC to LTO-IR
// (-dlto) with the name expressions, then nvJitLink with -lto -optimize-unused-variables, keeping the
// variables asked for (-variables-used), into a cubin for one target.
#pragma once

#include "nvrtc/compiler_api.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace kiln::jit {

struct ProgramInput {
  std::string name;                  // NVRTC's program name; a path makes quoted includes resolve beside it
  std::string source;
  std::vector<std::pair<std::string, std::string>> headers;   // in memory: include name -> text
  std::vector<std::string> options;  // NVRTC's, -I included; -arch and -dlto are added
  std::vector<std::string> link_options;
  std::vector<std::string> kernels;  // name expressions
  std::vector<std::string> variables;   // device variables to keep (asked as "&name")
  std::string target;                // "sm_90"
  bool record_headers = false;       // report every header NVRTC opened (its time trace)
  // -frandom-seed, which names internal-linkage symbols: a carried unit's is the build's
  // (rtc/compile_keys.hpp, carried_random_seed). "": none.
  std::string random_seed = {};
};

struct ProgramOutput {
  bool ok = false;
  std::string log;                   // NVRTC's log and nvJitLink's; on failure it says which step failed
  std::vector<std::byte> image;      // the cubin
  std::vector<std::string> kernel_symbols;     // parallel to ProgramInput::kernels
  std::vector<std::string> variable_symbols;   // parallel to ProgramInput::variables
  std::vector<std::string> headers;            // as NVRTC named them (record_headers)
  bool headers_unknown = false;                // record_headers, and NVRTC's trace could not be read
  double seconds = 0;
};

ProgramOutput compile_program(const CompilerApi& api, const ProgramInput& input);

}  // namespace kiln::jit
