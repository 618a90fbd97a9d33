#include "platform/library.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <string_view>
#include <system_error>

namespace kiln::platform {

const char* driver_library_name() { return "libcuda.so.1"; }   // the driver's SONAME, not the dev symlink

std::string versioned_library_name(const std::string& stem, int major) {
  return "lib" + stem + ".so." + std::to_string(major);
}

std::string nvrtc_builtins_name(int major, int minor) {
  return "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);
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

OpenedLibrary open_library(const std::string& file) {
  OpenedLibrary opened{dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL), {}};
  if (!opened.handle) {
    const char* text = dlerror();
    opened.error = text ? text : "dlopen failed";
  }
  return opened;
}

OpenedLibrary open_checked_library(const std::string& path, const LibraryFileCheck& check) {
  // O_NONBLOCK: a FIFO by that name is refused below instead of waiting for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {nullptr, std::strerror(errno)};
  struct stat status {};
  std::string problem;
  void* bytes = MAP_FAILED;
  if (::fstat(fd, &status) != 0) {
    problem = std::strerror(errno);
  } else if (!S_ISREG(status.st_mode)) {
    problem = "it is not a regular file";
  } else if (status.st_size == 0) {
    problem = "it is empty";
  } else {
    bytes = ::mmap(nullptr, static_cast<std::size_t>(status.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (bytes == MAP_FAILED) problem = std::strerror(errno);
  }
  ::close(fd);
  if (bytes != MAP_FAILED) {
    problem = check(std::span<const std::byte>(static_cast<const std::byte*>(bytes), static_cast<std::size_t>(status.st_size)));
    ::munmap(bytes, static_cast<std::size_t>(status.st_size));
  }
  if (!problem.empty()) return {nullptr, "not loaded: " + problem};
  return open_library(path);
}

OpenedLibrary open_system_library(const std::string& name) { return open_library(name); }

namespace {

std::string_view file_name_of(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The part of a library's file name that its versions share: "libcuda.so" of "libcuda.so.1" and of
// "/usr/lib/libcuda.so.580.1"; the whole name where it has no ".so".
std::string_view shared_stem(std::string_view file) {
  file = file_name_of(file);
  const std::size_t so = file.find(".so");
  return so == std::string_view::npos ? file : file.substr(0, so + 3);
}

enum class LoadedMatch { none, stem, exact };

// What the loader's own list of loaded objects says of `file`, without touching a file: an object
// loaded from exactly that path (a request by path) or by that file name (a request by name), one
// whose file name only starts with the same stem, or none.
LoadedMatch match_loaded(const std::string& file) {
  struct Wanted {
    std::string_view file;
    bool by_path;
    std::string_view stem;
    LoadedMatch found = LoadedMatch::none;
  } wanted{file, file.find('/') != std::string::npos, shared_stem(file)};
  const auto visit = [](dl_phdr_info* info, std::size_t, void* data) -> int {
    Wanted& w = *static_cast<Wanted*>(data);
    const std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
    const std::string_view name = file_name_of(path);
    if (w.by_path ? path == w.file : name == w.file) {
      w.found = LoadedMatch::exact;
      return 1;
    }
    if (name.starts_with(w.stem)) w.found = LoadedMatch::stem;
    return 0;
  };
  dl_iterate_phdr(visit, &wanted);
  return wanted.found;
}

}  // namespace

bool library_loaded(const std::string& file) {
  // dlopen(RTLD_NOLOAD) of a name no loaded object answers to still searches the library path and opens
  // each candidate to compare it with what is loaded: 0.1 ms in a fresh process, paid on every package
  // open in a program that has not used CUDA yet; where one answers, dlopen's own bookkeeping is still
  // about 10 us of a first open. So the loader's list is read first: a file loaded by this name or path
  // is the answer, and where no loaded file is even named like the request, the answer is no. A
  // driver loaded from a file named otherwise is then bound at the first kernel request, as when none
  // is loaded.
  if (file.empty()) return false;   // dlopen("") is the program itself, whose loaded name is "" too
  switch (match_loaded(file)) {
  case LoadedMatch::exact:
    return true;
  case LoadedMatch::none:
    return false;
  case LoadedMatch::stem:
    break;
  }
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
