// Shared libraries, by operating system (posix/library.cpp: dlopen; windows/library.cpp:
// LoadLibraryExW): the driver, NVRTC and nvJitLink are loaded at run time, never linked, and
// kiln_package_open_named needs the file of the module that called it.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>

namespace kiln::platform {

// The driver's library as the system names it: "libcuda.so.1", "nvcuda.dll".
const char* driver_library_name();

// A library's file name for a major version: ("nvrtc", 13) -> "libnvrtc.so.13" / "nvrtc64_130_0.dll",
// ("nvJitLink", 13) -> "libnvJitLink.so.13" / "nvJitLink_130_0.dll".
std::string versioned_library_name(const std::string& stem, int major);

// The file NVRTC <major>.<minor> opens by name, through the system's search, when it first compiles:
// "libnvrtc-builtins.so.13.0"; empty on Windows, where it is not opened this way from Kiln's side
// (compiler_loader.cpp's preload).
std::string nvrtc_builtins_name(int major, int minor);

// The directories under a CUDA toolkit's root that hold its libraries, in the order searched.
const char* const* toolkit_library_directories();

// Whether `file` names a file by path (has a directory part), not a name for the system's search.
bool names_a_path(const std::string& file);

// A library opened, or why not. (Not a kiln::Result: platform/ includes nothing of Kiln's; the
// callers above it make `error` one.)
struct OpenedLibrary {
  void* handle = nullptr;   // null when it was not opened
  std::string error;        // then why: the system's message, or why the file was refused
};

// A library by path, or by name through the system's search (Linux: the dynamic loader's path;
// Windows: the application's directory, System32, PATH); the system's message when it fails.
OpenedLibrary open_library(const std::string& file);

// Loading a library runs its constructors, so a file given by path is checked first, without running
// any of its code: `check` gets the file's bytes (mapped read-only) and returns "" or why the file
// must not be loaded (image/shared_object.hpp; a string, not a kiln::Status, for the reason above).
// POSIX: the file must be a regular file that passes `check`, then open_library. Windows:
// open_library; LoadLibraryExW refuses a file that is not a DLL for this machine itself, and `check`
// (ELF) is not called.
using LibraryFileCheck = std::function<std::string(std::span<const std::byte> file)>;
OpenedLibrary open_checked_library(const std::string& path, const LibraryFileCheck& check);

// A library of the operating system, by name, from the system's own place only where it has one
// (Windows: System32, never the application's directory or PATH; Linux: the dynamic loader's
// search, where the driver lives).
OpenedLibrary open_system_library(const std::string& name);

// Whether the process has this library loaded already (by the name or path it was loaded with, or its
// SONAME). On POSIX a file loaded from this path, or by this file name from any directory, counts as
// loaded, and only a loaded file whose name starts as this one's does ("libcuda.so" for "libcuda.so.1")
// is considered otherwise, so a library loaded from a file named otherwise counts as not loaded.
bool library_loaded(const std::string& file);

void close_library(void* library);

void* library_symbol(void* library, const char* name);

// The file a loaded library came from (the stub and the real driver share a name, so the name
// asked for does not say); `requested` when the system cannot tell.
std::string library_file(void* library, const std::string& requested);

struct ModuleInfo {
  const void* base = nullptr;  // load address: the same for every address in one module; null if unknown
  std::string path;            // absolute path of the module's file (UTF-8); "" if unknown
};

// The loaded module (the program or a shared library) that holds `address`.
ModuleInfo module_of(const void* address);

}  // namespace kiln::platform
