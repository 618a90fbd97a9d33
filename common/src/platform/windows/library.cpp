#include "platform/library.hpp"

#include "platform/text.hpp"

#include <windows.h>

namespace kiln::platform {

const char* driver_library_name() { return "nvcuda.dll"; }

std::string versioned_library_name(const std::string& stem, int major) {
  // The toolkit's Windows names: nvrtc64_130_0.dll, nvJitLink_130_0.dll.
  const std::string version = std::to_string(major) + "0_0";
  return (stem == "nvrtc" ? "nvrtc64_" : stem + "_") + version + ".dll";
}

// Untried on Windows with NVIDIA's wheels: NVRTC's DLL is left to find its builtins itself.
std::string nvrtc_builtins_name(int, int) { return {}; }

const char* const* toolkit_library_directories() {
  static const char* const directories[] = {"bin\\x64", "bin", nullptr};
  return directories;
}

bool names_a_path(const std::string& file) { return file.find_first_of("\\/:") != std::string::npos; }

OpenedLibrary open_library(const std::string& file) {
  const std::wstring wide = wide_of(file);
  // A library given by path finds its own dependencies beside it, as the toolkit's DLLs expect.
  const DWORD flags = names_a_path(file) ? LOAD_WITH_ALTERED_SEARCH_PATH : 0;
  HMODULE library = LoadLibraryExW(wide.c_str(), nullptr, flags);
  if (!library) return {nullptr, system_message(GetLastError())};
  return {reinterpret_cast<void*>(library), {}};
}

OpenedLibrary open_checked_library(const std::string& path, const LibraryFileCheck&) {
  // LoadLibraryExW maps a DLL's file and refuses one that is not a PE image for this machine before
  // DllMain runs (ERROR_BAD_EXE_FORMAT); a DLL that only lacks the entry point Kiln binds does run
  // its DllMain, as reading its export table here would avoid, at the cost of a PE reader.
  return open_library(path);
}

OpenedLibrary open_system_library(const std::string& name) {
  // System32 only: a DLL of the same name in the application's directory or on PATH is never taken.
  HMODULE library = LoadLibraryExW(wide_of(name).c_str(), nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (!library) return {nullptr, system_message(GetLastError()) + " (looked in System32 only)"};
  return {reinterpret_cast<void*>(library), {}};
}

bool library_loaded(const std::string& file) {
  HMODULE module = nullptr;
  return GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, wide_of(file).c_str(), &module) != 0;
}

void close_library(void* library) {
  if (library) FreeLibrary(reinterpret_cast<HMODULE>(library));
}

void* library_symbol(void* library, const char* name) {
  return reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(library), name));
}

namespace {

std::string module_file(HMODULE module) {
  std::wstring path(512, L'\0');
  for (;;) {
    const DWORD n = GetModuleFileNameW(module, path.data(), static_cast<DWORD>(path.size()));
    if (n == 0) return {};
    if (n < path.size()) {
      path.resize(n);
      return utf8_of_wide(path);
    }
    path.resize(path.size() * 2);   // truncated: a long path (\\?\...)
  }
}

}  // namespace

std::string library_file(void* library, const std::string& requested) {
  const std::string file = module_file(reinterpret_cast<HMODULE>(library));
  return file.empty() ? requested : file;
}

ModuleInfo module_of(const void* address) {
  ModuleInfo info;
  HMODULE module = nullptr;
  if (address == nullptr ||
      !GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          static_cast<LPCWSTR>(address), &module)) {
    return info;
  }
  info.base = module;
  info.path = module_file(module);
  return info;
}

}  // namespace kiln::platform
