#include "core/module_path.hpp"

#include <dlfcn.h>
#include <link.h>

#include <filesystem>
#include <system_error>

namespace kiln::core {

ModuleInfo module_of(const void* address) {
  ModuleInfo info;
  Dl_info symbol{};
  link_map* map = nullptr;
  if (address == nullptr || ::dladdr1(address, &symbol, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) {
    return info;
  }
  info.base = symbol.dli_fbase;
  std::error_code error;
  // The main program's link_map has an empty name; a library's is the path it was loaded by, which
  // may be relative to the directory current at load time, so it is made canonical here.
  const bool main_program = map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0';
  const std::filesystem::path file = main_program ? std::filesystem::path("/proc/self/exe")
                                                  : std::filesystem::path(map->l_name);
  const std::filesystem::path resolved = std::filesystem::canonical(file, error);
  if (!error) info.path = resolved.string();
  return info;
}

}  // namespace kiln::core
