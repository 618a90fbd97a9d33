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

// clang's resource directory (its builtin headers and CUDA wrappers) and where it was found. In order:
//   variable  $KILN_CLANG_RESOURCE_DIR, when set and not empty;
//   bundled   clang/ beside the parser module (<libdir>/kiln/clang: the copy Kiln's wheel ships, for
//             machines without clang), when it holds include/__clang_cuda_runtime_wrapper.h;
//   built_in  the one found when Kiln was configured (/usr/lib/llvm-19/lib/clang/19 on Debian).
struct ResourceDir {
  enum class From { variable, bundled, built_in };
  std::filesystem::path path;
  From from = From::built_in;
};
inline constexpr std::string_view k_bundled_resource_dir = "clang";
ResourceDir choose_clang_resource_dir(const char* variable, const std::filesystem::path& parser_dir,
                                      const std::filesystem::path& built_in);
// The choice for this process: the environment, the loaded kiln's parser module, the built-in path.
ResourceDir clang_resource_dir();

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
