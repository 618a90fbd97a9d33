// Kiln runtime, C++ interface to kiln/compile.h: programs compiled at run time, and the cache's
// counters. Include it where you compile at run time (it includes kiln.hpp and kiln/compile.h).
//
//   kiln::Program program;
//   program.source = R"(template <int N> __global__ void fill(int* out) { out[threadIdx.x] = N; })";
//   program.kernels = {"fill<3>", "fill<4>"};
//   kiln::Package compiled = program.compile();      // cached: a second process loads it from disk
//   compiled.kernel("fill<3>").launch(1, 32, 0, nullptr, out);
#ifndef KILN_PROGRAM_HPP
#define KILN_PROGRAM_HPP

#include "kiln/compile.h"
#include "kiln/kiln.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

// A program given at run time (kiln_program); compile() throws kiln::Error: COMPILE_FAILED with NVRTC's
// log, NO_COMPILER when NVRTC cannot be loaded or KILN_JIT=0.
struct Program {
  std::string name = "program.cu";   // NVRTC's program name; a path makes quoted includes resolve beside it
  std::string source;
  std::vector<std::pair<std::string, std::string>> headers;   // in memory: name -> text
  std::vector<std::string> include_dirs;
  std::vector<std::string> options;  // NVRTC's, not -arch
  std::vector<std::string> kernels;  // name expressions
  std::vector<std::string> globals;  // variables to keep

  // Compiles for the current context's device (else device 0), through the user's cache.
  Package compile() const {
    std::vector<kiln_program_header> header_list;
    for (const auto& [header_name, text] : headers) header_list.push_back({header_name.c_str(), text.c_str()});
    const auto pointers = [](const std::vector<std::string>& strings) {
      std::vector<const char*> out;
      for (const std::string& s : strings) out.push_back(s.c_str());
      return out;
    };
    const std::vector<const char*> dirs = pointers(include_dirs), opts = pointers(options),
                                   names = pointers(kernels), vars = pointers(globals);
    kiln_program p{};
    p.struct_size = sizeof(p);
    p.name = name.c_str();
    p.source = source.c_str();
    p.headers = header_list.data();
    p.header_count = header_list.size();
    p.include_dirs = dirs.data();
    p.include_dir_count = dirs.size();
    p.options = opts.data();
    p.option_count = opts.size();
    p.kernels = names.data();
    p.kernel_count = names.size();
    p.globals = vars.data();
    p.global_count = vars.size();
    kiln_package* out = nullptr;
    detail::check(kiln_program_compile(&p, &out));
    return Package(out);
  }
};

// This process's lookups and run-time compiles (kiln_cache_get_stats).
inline kiln_cache_stats cache_stats() {
  kiln_cache_stats stats{};
  stats.struct_size = sizeof(stats);
  detail::check(kiln_cache_get_stats(&stats));
  return stats;
}

}  // namespace kiln

#endif  // KILN_PROGRAM_HPP
