// kiln/compile.h: programs from strings, the compilers' search directories and the cache's
// counters. Thin entry points: the compile library (core/compile_library.hpp) is loaded when a
// program is compiled, never to answer these otherwise.
#include "api/abi_guard.hpp"
#include "core/direct_hits.hpp"
#include "core/program_package.hpp"
#include "kiln/compile.h"
#include "util/path_variables.hpp"

#include <string>
#include <vector>

using kiln::api::from_handle;
using kiln::api::guarded;
using kiln::api::null_argument;
using kiln::fail;
using kiln::Status;

namespace {

// A C list (pointer, count) as strings; a NULL entry is an invalid argument naming the field.
Status strings_of(const char* const* list, size_t count, const char* field, std::vector<std::string>& out) {
  if (count > 0 && !list)
    return fail(KILN_STATUS_INVALID_ARGUMENT, std::string("kiln_program_compile: ") + field + " is NULL");
  for (size_t i = 0; i < count; ++i) {
    if (!list[i]) {
      return fail(KILN_STATUS_INVALID_ARGUMENT,
                  std::string("kiln_program_compile: ") + field + "[" + std::to_string(i) + "] is NULL");
    }
    out.emplace_back(list[i]);
  }
  return {};
}

Status request_of(const kiln_program& program, kiln::core::ProgramRequest& request) {
  if (program.struct_size < sizeof(kiln_program)) {
    return fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_program_compile: program->struct_size is " +
                                                  std::to_string(program.struct_size) + ", below sizeof(kiln_program) (" +
                                                  std::to_string(sizeof(kiln_program)) + ")");
  }
  if (!program.source) return null_argument("kiln_program_compile", "program->source");
  request.name = program.name ? program.name : "program.cu";
  request.source = program.source;
  if (program.header_count > 0 && !program.headers) return null_argument("kiln_program_compile", "program->headers");
  for (size_t i = 0; i < program.header_count; ++i) {
    const kiln_program_header& h = program.headers[i];
    if (!h.name || !h.text) {
      return fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_program_compile: headers[" + std::to_string(i) + "]." +
                                                    (h.name ? "text" : "name") + " is NULL");
    }
    request.headers.emplace_back(h.name, h.text);
  }
  KILN_TRY(strings_of(program.include_dirs, program.include_dir_count, "include_dirs", request.include_dirs));
  KILN_TRY(strings_of(program.options, program.option_count, "options", request.options));
  KILN_TRY(strings_of(program.kernels, program.kernel_count, "kernels", request.kernels));
  KILN_TRY(strings_of(program.globals, program.global_count, "globals", request.globals));
  return {};
}

}  // namespace

extern "C" {

KILN_API kiln_status kiln_program_compile(const kiln_program* program, kiln_package** out) {
  if (out) *out = nullptr;
  return guarded(nullptr, "kiln_program_compile", [&]() -> Status {
    if (!program) return null_argument("kiln_program_compile", "program");
    if (!out) return null_argument("kiln_program_compile", "out");
    kiln::core::ProgramRequest request;
    KILN_TRY(request_of(*program, request));
    std::unique_ptr<kiln::core::Package> package;
    KILN_TRY(kiln::core::compile_program(request, package));
    *out = kiln::api::to_handle(package.release());
    return {};
  });
}

KILN_API kiln_status kiln_compiler_add_search_dir(const char* directory) {
  return guarded(nullptr, "kiln_compiler_add_search_dir", [&]() -> Status {
    if (!directory) return null_argument("kiln_compiler_add_search_dir", "directory");
    KILN_TRY(kiln::check_rooted_path("kiln_compiler_add_search_dir: directory", directory));
    kiln::core::add_compiler_search_directory(directory);
    return {};
  });
}

KILN_API kiln_status kiln_cache_get_stats(kiln_cache_stats* out) {
  return guarded(nullptr, "kiln_cache_get_stats", [&]() -> Status {
    if (!out) return null_argument("kiln_cache_get_stats", "out");
    if (out->struct_size < sizeof(kiln_cache_stats)) {
      return fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_cache_get_stats: out->struct_size is " +
                                                    std::to_string(out->struct_size) + ", below sizeof(kiln_cache_stats)");
    }
    kiln::core::CompileCounters c;
    if (kiln::core::CompileLibrary* library = kiln::core::loaded_compile_library()) c = library->counters();
    out->package_hits = kiln::core::Package::package_hits();
    out->memory_hits = kiln::core::memory_hits() + c.memory_hits;
    const kiln::core::DirectHitCounters direct = kiln::core::direct_hit_counters();   // hits the loader answered
    out->cache_hits = c.cache_hits + direct.hits;
    out->compiles = c.compiles;
    out->compile_failures = c.compile_failures;
    out->compiled_bytes = c.compiled_bytes;
    out->cache_bytes_read = c.cache_bytes_read + direct.bytes_read;
    return {};
  });
}

}  // extern "C"
