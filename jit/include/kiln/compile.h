/* Kiln runtime: kernels compiled at run time, behind the package, and the cache they share.
 * Include it yourself where you compile at run time (it includes kiln.h). See docs/runtime.md,
 * "Compiling at run time".
 *
 * A package holds what was known at build time. What was not (an instantiation chosen from run-time
 * values, a program from a string) is compiled at run time, when Kiln's compile library can be loaded
 * and it finds NVRTC and nvJitLink, for the device in use, with the
 * same trimmed image a build makes, and kept in the user's cache so that each is compiled once per
 * machine. Looked up in order: the package, this process's memory, the user's cache, a compile.
 *
 *   - kiln_package_get_kernel(pkg, "block_sum<double, 512>") for an instantiation the package lacks,
 *     of a source built with `carry_sources` (the package then holds its text, its headers and its
 *     options), compiles it, as it does a kernel of such a source that has no image for the device.
 *     A carried unit that holds what no build writes (an option that makes NVRTC or nvJitLink write or
 *     read a file, a path outside its tree, more bytes than the package's size allows) is
 *     KILN_STATUS_CORRUPT, naming the value, and nothing is written or compiled for it.
 *   - kiln_program_compile compiles a program given at run time and returns it as a package.
 *
 * The entry points below are libkiln's (libkiln.so.0, kiln.dll), so a program links the loader
 * alone; libkiln loads the compile library (libkiln_jit.so.0, kiln_jit.dll: CMake's Kiln::jit) from
 * its own directory, or from KILN_JIT_LIBRARY, the first time a kernel must be compiled, and never
 * needs NVRTC or nvJitLink itself. Without the compile library a compile is KILN_STATUS_NO_COMPILER,
 * naming where it looked; kiln_compiler_add_search_dir and kiln_cache_get_stats load nothing.
 *
 * Environment (read once per process)
 *   KILN_JIT_LIBRARY=<file> the compile library to load (an absolute path), instead of the one beside
 *                           libkiln
 *   KILN_JIT=0              never compile at run time (a package miss stays KILN_STATUS_KERNEL_NOT_FOUND)
 *   KILN_NVRTC=<file>, KILN_NVJITLINK=<file>  the libraries to load; else, in order, the directories
 *                           kiln_compiler_add_search_dir registered (the Python binding registers the
 *                           nvidia-cuda-nvrtc and nvidia-nvjitlink wheels'), $CUDA_PATH, $CUDA_HOME, then
 *                           the dynamic loader's search path (libnvrtc.so.13, libnvJitLink.so.13, ...)
 *   KILN_CACHE_DIR=<dir>    the user's cache (else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln), shared
 *                           with `kiln build`'s compile cache; KILN_CACHE=0 keeps compiled kernels in
 *                           memory only; KILN_CACHE_MAX_SIZE (default 5G) bounds it (least recently
 *                           used entries go first). A directory that cannot be written means memory
 *                           only, with one warning on stderr, never a failure.
 *   KILN_LOG=1              one stderr line per run-time compile and cache hit
 */
#ifndef KILN_COMPILE_H
#define KILN_COMPILE_H

#include "kiln/kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Programs from strings ------------------------------------------------------------------- */

/* A header given in memory: `#include "name"` (or <name>) finds `text`. */
typedef struct kiln_program_header {
  const char* name;
  const char* text;
} kiln_program_header;

typedef struct kiln_program {
  size_t struct_size;                  /* sizeof(kiln_program); fields are only ever appended */
  const char* name;                    /* NVRTC's program name, in messages ("ops.cu"); NULL: "program.cu".
                                          A path makes quoted includes resolve beside it. */
  const char* source;                  /* CUDA C++ text */
  const kiln_program_header* headers;  /* in-memory headers, searched first */
  size_t header_count;
  const char* const* include_dirs;     /* directories searched for headers (-I), in order */
  size_t include_dir_count;
  const char* const* options;          /* NVRTC options: -D, -std=c++17, --use_fast_math, -lineinfo, ...
                                          Not -arch: the target is the device's */
  size_t option_count;
  const char* const* kernels;          /* name expressions: "saxpy", "block_sum<float, 256>" */
  size_t kernel_count;
  const char* const* globals;          /* __device__/__constant__ variables to keep and look up ("coeffs") */
  size_t global_count;
} kiln_program;

/* Compiles `program` for the current context's device (else device 0) and returns a package that
 * holds its kernels, by the expressions given and their other spellings, and its globals: use it as
 * any package (kiln_package_get_kernel, kiln_package_get_global, kiln_package_destroy). The result is
 * cached under a key made of the source, every header's content (in memory or read from disk), the
 * options, the expressions, the device's target and the compilers' versions; a changed header is a
 * new compile, a copy of the project in another directory is a hit.
 * Errors: a NULL argument, a struct_size below this header's sizeof(kiln_program), a NULL source or a
 * NULL entry in a list: INVALID_ARGUMENT; KILN_JIT=0, or no usable NVRTC/nvJitLink: NO_COMPILER (the
 * message lists every place looked and why each was refused); a compile or link error:
 * COMPILE_FAILED (the message holds NVRTC's or nvJitLink's log); no driver or device: NO_DRIVER,
 * NO_DEVICE. *out is NULL after a failure. */
KILN_API kiln_status kiln_program_compile(const kiln_program* program, kiln_package** out);

/* Adds a directory to search for libnvrtc and libnvJitLink, after KILN_NVRTC / KILN_NVJITLINK and
 * before $CUDA_PATH: the Python binding registers the NVIDIA wheels' library directories. Takes effect
 * if the compilers have not been loaded yet (they are loaded once per process, on the first compile).
 * The directory must be absolute: a relative one is KILN_STATUS_INVALID_ARGUMENT, since it would be
 * searched under whatever the working directory is when the compilers are loaded. */
KILN_API kiln_status kiln_compiler_add_search_dir(const char* directory);

/* ---- The cache's counters --------------------------------------------------------------------- */

/* What this process's kernel lookups and run-time compiles did (kiln cache stats shows the user's
 * cache over every process). */
typedef struct kiln_cache_stats {
  size_t struct_size;                  /* sizeof(kiln_cache_stats); fields are only ever appended */
  uint64_t package_hits;               /* kernels found in a package */
  uint64_t memory_hits;                /* found compiled earlier in this process */
  uint64_t cache_hits;                 /* read from the user's cache */
  uint64_t compiles;                   /* run-time compiles that succeeded */
  uint64_t compile_failures;
  uint64_t compiled_bytes;             /* image bytes those compiles produced */
  uint64_t cache_bytes_read;           /* bytes read from the user's cache */
} kiln_cache_stats;

/* Errors: NULL or a struct_size below this header's sizeof(kiln_cache_stats): INVALID_ARGUMENT. */
KILN_API kiln_status kiln_cache_get_stats(kiln_cache_stats* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_COMPILE_H */
