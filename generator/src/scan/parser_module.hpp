// clang's parses (parse.hpp's run_parse and make_pch) live in a module of their own,
// libkiln_scan_parser.so, loaded the first time a source is parsed. Mapping clang and LLVM costs
// every process that links them about 24 ms before main runs; a build whose sources are all left to
// nvcc's image (docs/scan.md) parses nothing, and so never pays it. The module is found beside the
// kiln that runs (<bindir>/../<libdir>/kiln/, as installed and in the build tree), else where the
// build tree made it; nothing in the environment or a project chooses which code is loaded.
#pragma once

#include "scan/parse.hpp"

#include <map>
#include <string>

namespace kiln::scan::detail {

// What the module gives: its run_parse and make_pch.
struct ParserModule {
  ParseOutput (*run_parse)(const ParseJob& job) = nullptr;
  Status (*make_pch)(const ParseJob& job, const std::filesystem::path& output,
                     std::map<std::string, std::string>& spellings) = nullptr;
};

// The module's file: beside the running kiln when it is there, else the build tree's.
std::filesystem::path parser_module_path();

// Loads the module once per process (a process forked after inherits it). An error names the file
// and why it cannot be loaded; each parse then fails with it.
Result<const ParserModule*> parser_module();

// The GNU build ID in the notes of the ELF file at `path` (a hash of its contents the linker writes),
// as hex; "" when it has none or is no 64-bit ELF file.
std::string file_build_id(const std::filesystem::path& path);

// Which parser scans, for the scan cache's key: the module's GNU build ID, read from its file
// without loading it (else its size and modification time; "none" where there is no module).
const std::string& parser_module_identity();

}  // namespace kiln::scan::detail

// The module's one exported symbol.
extern "C" const kiln::scan::detail::ParserModule* kiln_scan_parser_module();
