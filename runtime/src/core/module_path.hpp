// Which loaded module (the executable or a shared library) holds an address, and where its file is:
// kiln_package_open_named looks for `<name>.kiln` next to the module that called it, not next to
// libkiln.so, and embedded packages are told apart by the module they were linked into.
#pragma once

#include <string>

namespace kiln::core {

struct ModuleInfo {
  const void* base = nullptr;  // load address: the same for every address in one module; null if unknown
  std::string path;            // absolute path of the module's file; "" if unknown
};

// dladdr on `address`. The main program's path comes from /proc/self/exe, because dladdr gives it as
// argv[0], which may be relative or a bare name found on PATH.
ModuleInfo module_of(const void* address);

}  // namespace kiln::core
