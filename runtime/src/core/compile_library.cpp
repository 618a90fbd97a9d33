#include "core/compile_library.hpp"

#include "image/shared_object.hpp"
#include "platform/files.hpp"
#include "platform/library.hpp"
#include "platform/text.hpp"
#include "util/path_variables.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#if !defined(_WIN32)
// Defined when the module links Kiln::jit_static (whose link options keep it); null otherwise, and the
// shared library is looked for instead. Weak, so that the loader never NEEDs the compile library.
extern "C" __attribute__((weak)) kiln::core::CompileLibrary* kiln_jit_compile_library(const char* interface_id);
#endif

namespace kiln::core {

namespace {

constexpr const char* k_variable = "KILN_JIT_LIBRARY";
constexpr const char* k_entry_point = "kiln_jit_compile_library";
#if defined(_WIN32)
constexpr const char* k_file_name = "kiln_jit.dll";
#else
constexpr const char* k_file_name = "libkiln_jit.so.0";
#endif

std::atomic<std::uint64_t> g_memory_hits{0};
std::atomic<CompileLibrary*> g_loaded{nullptr};
std::mutex g_directories_mutex;
std::vector<std::string> g_directories;   // registered, whether before the library loaded or after

using Entry = CompileLibrary* (*)(const char*);

// The compile library in `file`, opened only once its bytes show a library of this machine that
// exports the entry point.
Result<CompileLibrary*> open_file(const std::string& file) {
  Result<void*> library = image::open_library_exporting(file, k_entry_point);
  if (!library) return std::move(library).error();
  const auto entry = reinterpret_cast<Entry>(platform::library_symbol(*library, k_entry_point));
  if (CompileLibrary* compile = entry ? entry(k_compile_interface_id) : nullptr) return compile;
  platform::close_library(*library);
  return Error(entry ? "a compile library of another Kiln (this loader needs the one built with it)"
                     : std::string("lacks ") + k_entry_point);
}

}  // namespace

Status find_compile_library(const char* variable_value, const std::string& loader_file, CompileLibrary*& out) {
  out = nullptr;
  std::string looked;
  if (variable_value && *variable_value) {
    Status rooted = check_rooted_path(k_variable, variable_value);
    Result<CompileLibrary*> opened = rooted ? open_file(variable_value) : std::move(rooted).error();
    if (opened) {
      out = *opened;
      return {};
    }
    looked = std::string(variable_value) + " (" + k_variable + "): " + opened.error().message;
  } else if (loader_file.empty()) {
    looked = std::string(k_file_name) + ": the loader's own file is unknown, so nothing lies beside it";
  } else {
    const std::string file = platform::utf8_of(platform::path_of_utf8(loader_file).parent_path() / k_file_name);
    Result<CompileLibrary*> opened = open_file(file);
    if (opened) {
      out = *opened;
      return {};
    }
    looked = file + " (beside " + loader_file + "): " + opened.error().message;
  }
  return fail(KILN_STATUS_NO_COMPILER, std::string("run-time compilation needs Kiln's compile library (") + k_file_name +
                                           ", installed with Kiln::jit, or named by " + k_variable +
                                           "); looked at " + looked);
}

namespace {

Status find_library(CompileLibrary*& out) {
#if !defined(_WIN32)
  if (kiln_jit_compile_library) {
    out = kiln_jit_compile_library(k_compile_interface_id);
    if (out) return {};
    return fail(KILN_STATUS_NO_COMPILER, "the compile library linked into this module is of another Kiln");
  }
#endif
  const platform::ModuleInfo module = platform::module_of(reinterpret_cast<const void*>(&find_library));
  return find_compile_library(platform::environment(k_variable), module.path, out);
}

}  // namespace

Status compile_library(CompileLibrary*& out) {
  // The answer, found once: a library cannot be unloaded once its code may be running.
  static const Status found = [] {
    CompileLibrary* library = nullptr;
    Status status = find_library(library);
    std::lock_guard lock(g_directories_mutex);
    if (library)
      for (const std::string& directory : g_directories) library->add_search_directory(directory);
    g_loaded.store(library, std::memory_order_release);
    return status;
  }();
  out = g_loaded.load(std::memory_order_acquire);
  return found;
}

void add_compiler_search_directory(const std::string& directory) {
  std::lock_guard lock(g_directories_mutex);
  if (CompileLibrary* library = g_loaded.load(std::memory_order_acquire)) library->add_search_directory(directory);
  for (const std::string& known : g_directories)
    if (known == directory) return;   // as the library keeps them (jit::add_search_directory)
  g_directories.push_back(directory);
}

std::vector<std::string> compiler_search_directories() {
  std::lock_guard lock(g_directories_mutex);
  return g_directories;
}

CompileLibrary* loaded_compile_library() { return g_loaded.load(std::memory_order_acquire); }

void count_memory_hit() { g_memory_hits.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t memory_hits() { return g_memory_hits.load(std::memory_order_relaxed); }

}  // namespace kiln::core
