// The clang command lines the scanner parses with, built by hand (not through CommonOptionsParser,
// which silently drops every flag when the driver rejects one), and the small support headers they
// name. The support headers live in memory, in a virtual directory that only the scanner's file
// system overlay serves: nothing is written to disk, so parallel scans cannot race on them.
#pragma once

#include "scan/scanner.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::scan::detail {

// How one translation unit is parsed.
enum class ParseMode {
  device_prelude,   // CUDA device side, -nocudainc and a prelude of NVRTC's predefinitions (fast)
  device,           // CUDA device side with clang's CUDA wrapper and the toolkit's headers
  host,             // CUDA host side (launches under #ifndef __CUDA_ARCH__)
  cxx,              // a C++ host source (.cpp)
  c,                // a C host source (.c)
};

struct VirtualFile {
  std::string path;
  std::string content;
};

inline constexpr std::string_view k_support_dir = "/__kiln_scan_support__";
inline constexpr std::string_view k_managed_annotation = "kiln.managed";

// The headers in support/ (compiled in by CMake, support_files.cpp.in), each at its relative path
// under k_support_dir: the NVRTC prelude; after_wrapper.h and nvcc_extras.h, -include'd after clang's
// CUDA wrapper; stand-ins/, searched last (-idirafter) for headers CUDA 13 or clang lack;
// overrides/, searched first for the wrapper's quoted includes (-iquote).
const std::vector<VirtualFile>& support_files();

// clang's resource directory: $KILN_CLANG_RESOURCE_DIR, else the one found when Kiln was configured.
std::filesystem::path clang_resource_dir();

// The toolkit to parse against: `cuda_root`, else the one Kiln was built against.
std::filesystem::path effective_cuda_root(const std::filesystem::path& cuda_root);

// argv for the clang driver: flags for `mode`, the input's -I/-D/-std, then `file`.
std::vector<std::string> clang_arguments(const ScanInput& input, ParseMode mode, const std::string& file);

// The mode a host source's extension calls for: host (.cu/.cuh), c (.c) or cxx (anything else).
ParseMode host_source_mode(const std::filesystem::path& file);

// Whether to try the fast prelude parse first: the file includes nothing but user headers found next
// to it or in its include directories (nothing from the toolkit or the standard library).
bool prelude_candidate(const ScanInput& input, std::string_view source_text);

}  // namespace kiln::scan::detail
