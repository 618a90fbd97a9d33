// Scans one CUDA source with clang (libTooling) and returns what it holds (scan_result.hpp). The AST is
// built twice where a file has host code: the device side for kernels, templates and variables, the
// host side for launches and runtime requests (which may sit under #ifndef __CUDA_ARCH__).
#pragma once

#include "scan/scan_result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::scan {

struct ScanInput {
  std::filesystem::path file;                  // the source; relative paths are relative to `directory`
  std::filesystem::path directory;             // the working directory for relative paths (manifest dir)
  std::vector<std::string> include_dirs;       // as given to NVRTC/nvcc (absolute, or relative to directory)
  std::vector<std::string> defines;            // "N=4", "FAST"
  // From the compile options (options/compiler_options.hpp), in their order: "-DX=1", "-UY".
  std::vector<std::string> macro_options;
  std::vector<std::string> pre_includes;       // -include: headers read before the source
  bool default_device = false;                 // -default-device: unannotated functions are __device__
  // -rdc=true or a link group: clang parses with -fgpu-rdc, which allows what separate compilation
  // does (a kernel launching a kernel from the device, extern __device__ declarations).
  bool relocatable = false;
  std::string language_standard = "c++17";     // NVRTC's default
  std::filesystem::path cuda_root;             // the toolkit whose headers the source uses
  // The build directory and Kiln's include directory: paths under them (and under `directory` and
  // `cuda_root`) are cached by their names (util/named_roots.hpp). Not part of what the scan finds.
  std::filesystem::path build_dir;
  std::filesystem::path kiln_include_dir;
  // kernels: a kernel source (kernels, templates, instantiations, variables, requests);
  // host: a host source scanned only for launches and runtime requests.
  enum class Role { kernels, host };
  Role role = Role::kernels;
  // A precompiled header of the source's leading #include lines (make_preamble_pch of a source that
  // starts with the same lines, in the same directory, with the same options), used for its device
  // parse; the source is parsed whole where it fails. Not part of what the scan finds or its key.
  std::filesystem::path preamble_pch;
};

// Loads clang's parser now (scan/parser_module.hpp), in a process about to fork scan workers, so that
// each inherits it instead of loading it again. Scans load it themselves when this was not called;
// one that cannot load it fails with the reason.
void load_parser();

// Never throws. A parse error is an error diagnostic (file:line:col and clang's message), and then
// the result holds nothing else: results from a translation unit with errors are never reported.
// A kernel source's own constant requests for its kernel templates are resolved (resolve_requests)
// and come back as instantiations found by runtime_request.
ScanResult scan_source(const ScanInput& input);

// Writes to `pch` the precompiled header of `input`'s leading #include lines (leading_includes in
// source_text.hpp), parsed as its device parse reads them, for the sources that start with the same
// lines (ScanInput::preamble_pch). If it cannot (no such lines, a clang error, or a warning the scan
// would report for each source), nothing is written and the error says why.
Status make_preamble_pch(const ScanInput& input, const std::filesystem::path& pch);
// Removes what make_preamble_pch wrote for `pch`.
void remove_preamble_pch(const std::filesystem::path& pch);

// Equal for kernel sources whose device parses can share one preamble PCH: the same leading
// #include lines, in the same directory, parsed with the same options. "" for a source that cannot.
std::string preamble_key(const ScanInput& input);

struct Resolution {
  std::vector<Instantiation> instantiations;   // found_by runtime_request, at each request's location
  std::vector<Diagnostic> diagnostics;         // warnings: requests that name a template but resolve to nothing
};

// Resolves kernel requests (typically a host source's) against a kernel source: each request whose
// name is a template-id naming one of the kernel templates in `scanned` (scan_source's result for
// `source`) becomes an Instantiation with the canonical name expression clang resolves it to
// ("block_sum<float, 256u>" -> "block_sum<float, 256>"). Clang parses a synthetic file that includes
// the source and takes `&NAME` of each, as NVRTC does for name expressions. Requests that name none
// of the templates are skipped. Never throws.
Resolution resolve_requests(const ScanInput& source, const ScanResult& scanned,
                            const std::vector<RuntimeRequest>& requests);

}  // namespace kiln::scan
