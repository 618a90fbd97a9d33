// A manifest's compile options, understood: each one found in option_table(), in either spelling
// NVRTC accepts ("--maxrregcount=64" or "--maxrregcount", "64" as two strings; "-DX", "-D X",
// "-D=X" or "-D", "X"), its value checked, and translated for every consumer. Plain data in and out.
#pragma once

#include "util/result.hpp"

#include <span>
#include <string>
#include <vector>

namespace kiln::options {

// A problem with one option: the index of its first string in the list given, and a message that
// completes "option '<it>' in 'options' ...".
struct OptionProblem {
  std::size_t index = 0;
  std::string option;       // as written (both strings of a two-string option, joined by a space)
  std::string message;      // "is set by Kiln for each target; list targets in 'targets'"
};

// Every problem in `given`, in order: unknown or refused options, a missing or malformed value.
std::vector<OptionProblem> check_options(std::span<const std::string> given);

// What the scanner must know: the options that change the language.
struct ScanOptions {
  std::string standard;                  // "" unless -std was given (the last one wins)
  std::vector<std::string> macros;       // "-DNAME=V", "-UNAME", in order
  std::vector<std::string> pre_includes; // headers, in order
  bool default_device = false;           // -default-device: unannotated functions are __device__
};

struct CompilerOptions {
  std::vector<std::string> nvrtc;        // for NVRTC, as --long=value (-DX, -UX for macros)
  std::vector<std::string> link;         // what nvJitLink repeats at link time
  std::vector<std::string> nvcc;         // for nvcc, in its own spelling
  ScanOptions scan;
  // An option NVRTC does not take (--extended-lambda): the unit compiles with nvcc.
  std::string needs_nvcc;
  // An option only NVRTC honours (-default-device): the unit never goes to nvcc.
  std::string forbids_nvcc;
  // -rdc=true (the last -rdc wins): the unit is compiled separately and linked with others into
  // one image per target (a device link group).
  bool relocatable = false;
};

// Translates `given` (the manifest's options, then the source's); fails on the first problem.
Result<CompilerOptions> interpret(std::span<const std::string> given);

// The standard a host source is scanned with: its code uses <kiln/kiln.hpp>, which needs C++17, so
// an older -std the kernels take is raised to c++17; a newer one is kept.
std::string host_standard(const std::string& kernel_standard);

}  // namespace kiln::options
