// A manifest's compile options, understood: each one read as option_reader.hpp reads it (found in
// option_table(), in either spelling NVRTC accepts, its value checked) and translated for every
// consumer. Plain data in and out.
#pragma once

#include "options/option_reader.hpp"
#include "util/result.hpp"

#include <span>
#include <string>
#include <vector>

namespace kiln::options {

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
  // -Xptxas=-v (or --verbose, alone or in a list): kiln build prints ptxas's report as notes
  // (generator/src/cli/resource_notes.hpp). ptxas gets the -v too, as nvJitLink's and nvcc's other
  // ptxas options: its report is the only record of spills (a cubin has none), and since the cubin
  // records ptxas's command line (.note.nv.tkinfo), the option is rightly part of the cache's key.
  bool ptxas_verbose = false;
};

// Translates `given` (the manifest's options, then the source's); fails on the first problem.
Result<CompilerOptions> interpret(std::span<const std::string> given);

// The standard a host source is scanned with: its code uses <kiln/kiln.hpp>, which needs C++17, so
// an older -std the kernels take is raised to c++17; a newer one is kept.
std::string host_standard(const std::string& kernel_standard);

}  // namespace kiln::options
