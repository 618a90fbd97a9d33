// Opens the package named on the command line through kiln.dll and lists it: the C++ interface, as
// a Windows program uses it. Prints "version <n>" and one "kernel <name>" per kernel.
#include <kiln/kiln.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::printf("version %u\n", static_cast<unsigned>(kiln_version()));
  try {
    const kiln::Package package = kiln::Package::open_file(argv[1]);
    for (const std::string& name : package.kernel_names()) std::printf("kernel %s\n", name.c_str());
  } catch (const kiln::Error& error) {
    std::printf("error %s\n", error.what());
    return 1;
  }
  return 0;
}
