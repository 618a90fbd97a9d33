// What the scanner finds in CUDA sources, as plain data: kernels, kernel-template instantiations and
// how each was found, requests to the Kiln runtime in host code, device variables, and every header
// read. The scanner (scanner.hpp) fills it from clang's AST; the build and `kiln scan` consume it and
// never see clang.
#pragma once

#include "util/result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::scan {

// Kiln's one place type: `file` as given to the scanner (relative paths stay relative), or a header
// path; the scanner sets file, line and column only.
using Location = kiln::Location;

struct TemplateParameter {
  enum class Kind { type, non_type, template_template };
  Kind kind = Kind::type;
  std::string name;                        // "T"; "" if unnamed
  std::string type;                        // non-type parameters: "int", "unsigned int"
  bool pack = false;                       // typename... Ts
  std::optional<std::string> default_argument;  // as written: "float", "256"
};

struct KernelParameter {
  std::string name;
  std::string type;                        // as clang prints it: "const float *"
};

struct Kernel {
  std::string qualified_name;              // "reduce::block_sum", "(anonymous namespace)::hidden"
  std::vector<KernelParameter> parameters;
  std::vector<TemplateParameter> template_parameters;   // empty for a non-template kernel
  bool is_template = false;
  bool extern_c = false;
  bool internal_linkage = false;           // static, or in an anonymous namespace
  std::optional<std::string> launch_bounds;  // "256" or "256, 2", as written
  // Whether this translation unit defines it. A kernel only declared here (`__global__ void k(int);`
  // in a header, defined in another source) is listed so that `kiln scan` shows it, but it is not one
  // of the file's kernels: nothing builds or records it for this source.
  bool defined = true;
  Location location;                       // the definition, or the first declaration if none
};

// How an instantiation of a kernel template was found. Written into `kiln scan --json`: never rename.
enum class FoundBy {
  explicit_instantiation,                  // template __global__ void k<float>(float*);
  explicit_specialization,                 // template <> __global__ void k<int>(int*) { ... }
  launch,                                  // k<float><<<g, b>>>(...) in host code
  address_taken,                           // &k<float>, cudaLaunchKernel((void*)k<float>, ...)
  runtime_request,                         // pkg.kernel("k<float>") / kiln_package_get_kernel(p, "k<float>", ...)
};

struct Instantiation {
  std::string kernel;                      // the template's qualified name: "reduce::block_sum"
  std::string name_expression;             // an NVRTC name expression: "reduce::block_sum<float, 256>"
  FoundBy found_by = FoundBy::launch;
  Location location;                       // where it was found
  // The name as a demangler spells nvcc's symbol for it, where that differs ("k<(Mode)3>" for
  // "k<Mode::fast>"): nvcc-built units find the kernel by it. "" when the same.
  std::string symbol_form = {};
  // clang's Itanium mangling of the specialization ("_Z11type_kernelIVKfEvPi"). Never a symbol name
  // (clang's and nvcc's manglings differ for internal linkage, scanner-notes.md): an nvcc-built unit
  // demangles it and its own symbols with one demangler and compares, so clang, not a string
  // rewriter, decides which symbol a spelling means. "" when clang gave none.
  std::string mangled_name = {};
  // Found inside an #if block that tests __CUDA_ARCH__ (`#ifndef __CUDA_ARCH__` around a launch):
  // the scan's host parse saw it, nvcc's device pass may not, so nvcc may not build it unasked.
  bool under_arch_test = false;
};

// A request in host code to the Kiln runtime for a kernel or variable by name.
struct RuntimeRequest {
  enum class What { kernel, variable };
  What what = What::kernel;
  std::string name;                        // exactly as written in the string literal
  Location location;
};

struct Variable {
  enum class Kind { device, constant, managed };
  std::string qualified_name;              // "tables::coeffs"
  Kind kind = Kind::device;
  std::string type;                        // "float[64]"
  bool internal_linkage = false;           // static, or in an anonymous namespace: nvcc's symbol is its own
  Location location;
};

struct Header {
  std::string path;                        // as the preprocessor resolved it
  std::uint64_t content_hash = 0;          // XXH3-64, as in the package format
};

struct Diagnostic {
  enum class Severity { warning, error };
  Severity severity = Severity::warning;
  Location location;
  std::string message;                     // "file:line:col: error: ..." is Location + message
};

struct ScanResult {
  std::vector<Kernel> kernels;
  std::vector<Instantiation> instantiations;
  std::vector<RuntimeRequest> requests;    // only those whose name is a constant string
  std::vector<Variable> variables;
  std::vector<Header> headers;             // every header read, transitively, without duplicates
  std::vector<Diagnostic> diagnostics;     // warnings (non-constant requests, __CUDA_ARCH__ >= 1000
                                           // branches clang cannot see) and, on failure, errors
  bool has_host_code = false;              // the file has host code (nvcc compiles it, not NVRTC)
  bool ok() const;                         // no error diagnostics
};

}  // namespace kiln::scan
