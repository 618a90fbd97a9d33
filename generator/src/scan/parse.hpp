// One clang parse of one translation unit and what the collectors took from its AST, as plain data.
// The only interface between the clang-free orchestration (scanner.cpp, request_resolver.cpp) and
// the translation units that include clang's headers.
#pragma once

#include "scan/compile_args.hpp"
#include "scan/scan_result.hpp"
#include "scan/source_text.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::scan::detail {

struct ParseJob {
  std::vector<std::string> arguments;        // clang_arguments()
  std::filesystem::path directory;           // absolute: relative paths in arguments resolve here
  std::vector<VirtualFile> virtual_files;    // served from memory (support files, a probe file)
  std::filesystem::path cuda_root;           // declarations under it are not the user's
  bool declarations = true;                  // kernels, explicit instantiations, variables
  bool references = true;                    // launches, address-of, runtime requests
  std::string probe_file;                    // when resolving requests: the synthetic main file
  // A precompiled preamble (make_pch): clang reads it first (-include-pch), and the main file is read
  // as `main_text`, the source with the preamble's lines blanked, so that nothing is read twice and
  // every later line keeps its number. `preamble_file` is the preamble's own main file (a virtual
  // file among virtual_files): not one of the source's headers.
  std::string include_pch;
  std::optional<std::string> main_text;
  std::string preamble_file;
};

// A clang error, and the line of the probe file it belongs to (0 when it has none).
struct ClangError {
  Diagnostic diagnostic;
  int probe_line = 0;
};

// A `__kiln_probe_N = &NAME;` read back from the AST.
struct ProbeResult {
  int index = 0;
  std::string kernel;                        // the template's qualified name
  std::optional<std::string> name_expression;
  std::string symbol_form;                   // see Instantiation::symbol_form
  std::string mangled_name;                  // see Instantiation::mangled_name
  std::string why_not;                       // when the instantiation cannot be named
};

struct ParseOutput {
  bool failed = false;                       // errors: nothing else below is filled
  std::vector<ClangError> errors;
  ScanResult found;                          // diagnostics holds warnings only
  bool host_definitions = false;             // a host function is defined in the user's files
  bool launches = false;                     // a <<<>>> launch in the user's files
  bool cuda_runtime_included = false;        // the user's files include cuda_runtime(_api).h
  bool arch_conditionals = false;            // the user's files test __CUDA_ARCH__ / NV_IF_TARGET
  // The user's files' #if blocks that test __CUDA_ARCH__ (ArchFacts::arch_blocks), by file name as
  // locations name it: instantiations found there are marked Instantiation::under_arch_test.
  std::map<std::string, std::vector<LineSpan>> arch_blocks;
  std::vector<ProbeResult> probes;
};

// Never throws for a bad source: clang's errors come back in `errors`.
ParseOutput run_parse(const ParseJob& job);

// Writes the precompiled header of the job's main file (a preamble of #include lines) to `output`;
// if it cannot, nothing is written and the error is the first one clang reports. A PCH names the files it
// read by absolute path; `spellings` maps those names to the ones the preprocessor used (relative
// to the job's directory where an include directory was given so), which a parse without the PCH
// reports.
Status make_pch(const ParseJob& job, const std::filesystem::path& output,
                std::map<std::string, std::string>& spellings);

}  // namespace kiln::scan::detail
