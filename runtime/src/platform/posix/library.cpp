#include "platform/library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <filesystem>
#include <system_error>

namespace kiln::platform {

const char* driver_library_name() { return "libcuda.so.1"; }   // the driver's SONAME, not the dev symlink

std::string versioned_library_name(const std::string& stem, int major) {
  return "lib" + stem + ".so." + std::to_string(major);
}

const char* const* toolkit_library_directories() {
#if defined(__aarch64__)
  static const char* const directories[] = {"lib64", "lib", "targets/sbsa-linux/lib", nullptr};
#else
  static const char* const directories[] = {"lib64", "lib", "targets/x86_64-linux/lib", nullptr};
#endif
  return directories;
}

bool names_a_path(const std::string& file) { return file.find('/') != std::string::npos; }

void* open_library(const std::string& file, std::string& error) {
  void* library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* text = dlerror();
    error = text ? text : "dlopen failed";
  }
  return library;
}

void* open_system_library(const std::string& name, std::string& error) { return open_library(name, error); }

bool library_loaded(const std::string& file) {
  void* handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return false;
  dlclose(handle);  // RTLD_NOLOAD still takes a reference
  return true;
}

void close_library(void* library) {
  if (library) dlclose(library);
}

void* library_symbol(void* library, const char* name) {
  dlerror();   // a stale error must not be taken for this lookup's
  return dlsym(library, name);
}

std::string library_file(void* library, const std::string& requested) {
  link_map* map = nullptr;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') {
    return map->l_name;
  }
  return requested;
}

ModuleInfo module_of(const void* address) {
  ModuleInfo info;
  Dl_info symbol{};
  link_map* map = nullptr;
  if (address == nullptr || ::dladdr1(address, &symbol, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) {
    return info;
  }
  info.base = symbol.dli_fbase;
  std::error_code error;
  // The main program's link_map has an empty name (dladdr would give argv[0], which may be relative
  // or a bare name found on PATH); a library's is the path it was loaded by, which may be relative
  // to the directory current at load time, so it is made canonical here.
  const bool main_program = map == nullptr || map->l_name == nullptr || map->l_name[0] == '\0';
  const std::filesystem::path file = main_program ? std::filesystem::path("/proc/self/exe")
                                                  : std::filesystem::path(map->l_name);
  const std::filesystem::path resolved = std::filesystem::canonical(file, error);
  if (!error) info.path = resolved.string();
  return info;
}

}  // namespace kiln::platform
