// What one compile unit is asked to hold, after the manifest and the scanner have had their say:
// the name expressions to build and record, and the variables to keep and record. Plain data shared
// by discovery (which finds them), the plan (which turns them into jobs) and the assembler (which
// resolves them to symbols).
#pragma once

#include "compile/compile_job.hpp"

#include <map>
#include <string>
#include <vector>

namespace kiln::plan {

// Where a name came from. Written in the manifest, it is the user's promise: a name that does not
// resolve, or that means two kernels, is an error. Found by the scanner (an instantiation, a
// variable) or asked for by host code (a runtime request), it is Kiln's finding: the same problems
// are warnings.
enum class NameOrigin { manifest, discovered, request };

struct PlannedName {
  std::string expression;        // as NVRTC gets it: "block_sum<float, 256u>"; variables without '&'
  NameOrigin origin = NameOrigin::manifest;
  compile::Origin where;         // manifest line, launch, request; file relative to the manifest dir
  // A request's canonical expression when the scanner resolved it ("block_sum<float, 256>"): nvcc
  // units match symbols by it when the written spelling does not demangle alike.
  std::string canonical;
  bool managed = false;          // a __managed__ variable: NVRTC cannot take it as a name expression
  std::string symbol;            // managed variables in NVRTC units: the symbol nvJitLink keeps
};

struct PlannedUnit {
  std::string source;
  int manifest_line = 0;
  compile::Compiler compiler = compile::Compiler::nvrtc;
  std::vector<PlannedName> kernels;     // each becomes a name of the kernel it resolves to
  std::vector<PlannedName> variables;   // kept through trimming and recorded by name
};

// What scanning added to each source, before the manifest's own names are merged in.
struct SourceDiscovery {
  bool has_host_code = false;
  std::vector<PlannedName> kernels;
  std::vector<PlannedName> variables;
};

struct Discovery {
  std::map<std::string, SourceDiscovery> sources;   // by source path as in the manifest
  std::vector<std::string> warnings;                // complete lines: "kernels/a.cu:4:1: warning: ..."
};

}  // namespace kiln::plan
