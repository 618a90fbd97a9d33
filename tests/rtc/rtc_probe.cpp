// One process that needs a kernel the package lacks: opens a package carrying its sources, compiles
// `request` for `target` through the process's run-time compiler and cache (the same path
// kiln_package_get_kernel takes on a miss, less the driver), checks the compiled package holds the
// kernel, and prints where it came from: "produced", "disk" or "memory". Exit 0 on success, 1 with
// the message on stderr otherwise. processes_test.cpp runs many at once.
//
//   rtc_probe <package> <request> <target> [--nvrtc]     (--nvrtc: add whether libnvrtc was loaded)
#include "format/package_reader.hpp"
#include "rtc/compiled_package.hpp"
#include "rtc/runtime_compiler.hpp"
#include "util/file_io.hpp"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && std::string(argv[4]) == "--nvrtc")) {
    std::fprintf(stderr, "usage: rtc_probe <package> <request> <target> [--nvrtc]\n");
    return 2;
  }
  kiln::Result<std::vector<std::byte>> bytes = kiln::read_binary_file(argv[1]);
  kiln::format::PackageReader reader;
  if (!bytes || !reader.open(*bytes, argv[1])) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  const kiln::Result<kiln::rtc::Compiled> outcome =
      kiln::rtc::RuntimeCompiler::process().package_kernel(reader, argv[1], argv[2], argv[3]);
  if (!outcome) {
    std::fprintf(stderr, "%s\n", kiln::error_text(outcome.error()).c_str());
    return 1;
  }
  kiln::format::PackageReader compiled;
  if (!compiled.open(*outcome->package, "compiled") || !compiled.find_kernel(outcome->expression)) {
    std::fprintf(stderr, "the compiled package lacks %s\n", outcome->expression.c_str());
    return 1;
  }
  const char* source = outcome->source == kiln::rtc::Source::produced ? "produced"
                       : outcome->source == kiln::rtc::Source::disk   ? "disk"
                                                                     : "memory";
  if (argc == 5) {
    std::ifstream maps("/proc/self/maps");
    const std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
    std::printf("%s %s\n", source, text.find("libnvrtc") != std::string::npos ? "nvrtc-loaded" : "no-nvrtc");
    return 0;
  }
  std::printf("%s\n", source);
  return 0;
}
