/* Kiln runtime: load kernels from a Kiln package with the CUDA driver alone.
 *
 * A package (built by `kiln build`) holds, for every compile unit, one image per target: trimmed
 * cubins and PTX. The runtime opens it, picks the image the current device can run (exact 'a'
 * cubin, exact cubin, same-major lower-minor cubin, then PTX the driver compiles), loads it through
 * the driver's Library API and hands out launchable kernels. No NVRTC, nvcc, host compiler or CUDA
 * toolkit is needed at run time: libcuda.so.1 is found with dlopen when a call first needs the GPU,
 * so opening and listing a package work on machines with no driver at all.
 *
 * Conventions
 *   - Every function that can fail returns a kiln_status. KILN_STATUS_SUCCESS is 0.
 *   - Nothing throws across this interface. Destroying NULL is a no-op.
 *   - After a failure, kiln_last_error() (per thread) and kiln_package_last_error() (per package
 *     and thread) describe it in a sentence that names the package, kernel, device or target.
 *   - Handles are safe to use from many threads at once.
 *   - Kernel and string pointers returned by a package live as long as the package.
 *
 * Environment (see docs/runtime.md)
 *   KILN_LOG=1              log each image choice (kernel, device, image, rule, load time) to stderr
 *   KILN_FORCE_TARGET=ptx   load only PTX images; =sass only cubins; =<target> (e.g. compute_75)
 *                           only that target
 *   KILN_LIBCUDA=<path>     the driver library to load instead of libcuda.so.1
 *   KILN_PACKAGE_PATH=<dir>:<dir>  where kiln_package_open_named looks last for <name>.kiln
 */
#ifndef KILN_KILN_H
#define KILN_KILN_H

#include <stddef.h>
#include <stdint.h>

/* KILN_STATIC: the runtime is linked statically into this module (Kiln::runtime_static, which
 * defines it for its users): the entry points are hidden, private to the module. */
#if defined(_WIN32)
/* Windows: kiln.dll exports the entry points (KILN_BUILDING_RUNTIME, while it is built) and its
 * users import them; linked statically (KILN_STATIC) they are plain functions of the module. */
#  if defined(KILN_STATIC)
#    define KILN_API
#  elif defined(KILN_BUILDING_RUNTIME)
#    define KILN_API __declspec(dllexport)
#  else
#    define KILN_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__) && defined(KILN_STATIC)
#  define KILN_API __attribute__((visibility("hidden")))
#elif defined(__GNUC__)
#  define KILN_API __attribute__((visibility("default")))
#else
#  define KILN_API
#endif

/* Keeps clang from turning a call into a jump (which would hide the calling module from
 * kiln_package_open_named); GCC has no such attribute: see kiln_package_open_named. */
#if defined(__has_attribute)
#  if __has_attribute(not_tail_called)
#    define KILN_NOT_TAIL_CALLED __attribute__((not_tail_called))
#  endif
#endif
#ifndef KILN_NOT_TAIL_CALLED
#  define KILN_NOT_TAIL_CALLED
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_VERSION_MAJOR 0
#define KILN_VERSION_MINOR 4
#define KILN_VERSION_PATCH 0
/* major * 10000 + minor * 100 + patch, as kiln_version() returns it. */
#define KILN_VERSION (KILN_VERSION_MAJOR * 10000 + KILN_VERSION_MINOR * 100 + KILN_VERSION_PATCH)

/* Status codes. Written in stone: never renumbered, only appended. */
typedef enum kiln_status {
  KILN_STATUS_SUCCESS = 0,
  KILN_STATUS_INVALID_ARGUMENT = 1,        /* a NULL pointer or an out-of-range value */
  KILN_STATUS_OUT_OF_MEMORY = 2,
  KILN_STATUS_IO_ERROR = 3,                /* the package file cannot be opened or mapped */
  KILN_STATUS_NOT_A_PACKAGE = 4,           /* wrong magic: not a Kiln package */
  KILN_STATUS_UNSUPPORTED_VERSION = 5,     /* a package format major version this runtime does not read */
  KILN_STATUS_TRUNCATED = 6,               /* the package ends early */
  KILN_STATUS_CORRUPT = 7,                 /* a checksum or the index is wrong */
  KILN_STATUS_IMAGE_CORRUPT = 8,           /* an image fails its checksum or does not decode */
  KILN_STATUS_KERNEL_NOT_FOUND = 9,        /* no kernel by that name; the message lists the nearest */
  KILN_STATUS_VARIABLE_NOT_FOUND = 10,
  KILN_STATUS_NO_DRIVER = 11,              /* no libcuda.so.1, or only the toolkit's stub */
  KILN_STATUS_NO_DEVICE = 12,              /* the driver sees no GPU */
  KILN_STATUS_NO_IMAGE_FOR_DEVICE = 13,    /* no image in the package runs on this device */
  KILN_STATUS_DRIVER_ERROR = 14,           /* the driver refused a call; the message has its error name */
  KILN_STATUS_ARGUMENT_MISMATCH = 15,      /* launch arguments do not match the kernel's parameters */
  KILN_STATUS_INTERNAL_ERROR = 16,         /* a bug in Kiln */
  KILN_STATUS_PACKAGE_NOT_FOUND = 17,      /* kiln_package_open_named: no package by that name anywhere */
  KILN_STATUS_COMPILE_FAILED = 18,         /* a run-time compile failed; the message holds the compiler's log */
  KILN_STATUS_NO_COMPILER = 19             /* run-time compilation needed but off (KILN_JIT=0) or no usable
                                              NVRTC/nvJitLink; the message lists where Kiln looked */
} kiln_status;

/* A static, never-NULL description of a status ("no image for this device"). */
KILN_API const char* kiln_status_string(kiln_status status);

/* KILN_VERSION of the library actually loaded (which may differ from the header's). */
KILN_API uint32_t kiln_version(void);

/* The message of the calling thread's last failed call, or "" if none. Valid until that thread's
 * next call into Kiln. */
KILN_API const char* kiln_last_error(void);

typedef struct kiln_package kiln_package;
typedef struct kiln_kernel kiln_kernel;     /* owned by its package; never destroyed by the caller */

/* ---- Opening ---------------------------------------------------------------------------------- */

/* Opens the file at `path` read-only. Reads only the header and the index; images are read, checked
 * and decompressed when a device needs them. The main file of a split package (kiln split) loads a
 * device's cubins from <name>.cc<major>.kiln beside `path`, opened when a device of that major first
 * needs one, else from its own PTX (docs/split-packages.md). */
KILN_API kiln_status kiln_package_open_file(const char* path, kiln_package** out);

/* Flags for kiln_package_open_memory. */
#define KILN_OPEN_COPY 0u       /* copy the bytes: the caller may free them at once */
#define KILN_OPEN_BORROW 1u     /* use the bytes in place: they must outlive the package */

/* Opens a package from memory (`label` names it in messages; may be NULL). */
KILN_API kiln_status kiln_package_open_memory(const void* data, size_t size, uint32_t flags, const char* label,
                                              kiln_package** out);

/* Unloads every image the package loaded and frees it. NULL is a no-op. Kernels from the package
 * must not be launched after this. */
KILN_API void kiln_package_destroy(kiln_package* package);

/* The message of the last failed call on `package` from the calling thread, or "". */
KILN_API const char* kiln_package_last_error(const kiln_package* package);

/* ---- What a package holds (no driver needed) ---------------------------------------------------- */

KILN_API size_t kiln_package_kernel_count(const kiln_package* package);
/* The canonical name of kernel `index` ("block_sum<float, 256>"), or NULL if out of range. A package
 * whose index is read by pages (docs/runtime.md, "Large indexes") checks the kernel's records first:
 * NULL too when they are damaged or cannot be read, with kiln_last_error() saying why. The same for
 * kiln_package_kernel_lowered_name and, for the whole index, kiln_package_target. */
KILN_API const char* kiln_package_kernel_name(const kiln_package* package, size_t index);
/* The lowered (mangled) symbol of kernel `index` in its image, or NULL if out of range. A kernel of a
 * source variant is stored as "f64/_Z5scaleIdEvPT_" in the package: this is the symbol after
 * the '/', while kiln_package_kernel_name gives "f64/scale<double>". */
KILN_API const char* kiln_package_kernel_lowered_name(const kiln_package* package, size_t index);
KILN_API size_t kiln_package_target_count(const kiln_package* package);
/* Target string `index` ("sm_90a", "compute_75"), or NULL if out of range. */
KILN_API const char* kiln_package_target(const kiln_package* package, size_t index);

/* ---- Kernels ------------------------------------------------------------------------------------ */

/* Finds a kernel by any name the package records for it (the name expression as written in the
 * manifest, with any whitespace; its canonical spelling; its lowered name), and makes it launchable
 * on the device of the calling thread's current CUDA context. With no current context, device 0's
 * primary context is made current, as the CUDA runtime does.
 *
 * The first request for a kernel of a unit on a device of a new architecture selects, checks,
 * decodes and loads that unit's image (cuLibraryLoadData) and verifies that the kernel resolves;
 * later requests are a lookup. The same kiln_kernel is returned for every device: it launches on the
 * device of the context current at launch time, loading that device's image if needed. */
KILN_API kiln_status kiln_package_get_kernel(kiln_package* package, const char* name, kiln_kernel** out);

/* The kernel's parameter count and, for each, its byte size and offset in the parameter buffer
 * (from the cubin). `sizes`/`offsets` may be NULL; otherwise they hold `capacity` entries, and the
 * first min(count, capacity) are filled. If the package does not record the kernel's parameters,
 * `*count` is KILN_PARAMS_UNKNOWN, nothing is filled, and launches do not check the argument count. */
KILN_API kiln_status kiln_kernel_params(const kiln_kernel* kernel, size_t* count, size_t* sizes, size_t* offsets,
                                        size_t capacity);
#define KILN_PARAMS_UNKNOWN ((size_t)-1)

/* The kernel's canonical name. */
KILN_API const char* kiln_kernel_name(const kiln_kernel* kernel);
/* The kernel's symbol in its image (what cuLibraryGetKernel takes), also for a kernel compiled at
 * run time, which has no index in the package it was asked of (0.4.0). Valid while the package is open. */
KILN_API const char* kiln_kernel_lowered_name(const kiln_kernel* kernel);

typedef struct kiln_dim3 {
  uint32_t x, y, z;
} kiln_dim3;

/* Launches on `stream` (a CUstream; NULL for the current context's default stream). `args` holds
 * one pointer per parameter, as for cuLaunchKernel; `arg_count` must equal the kernel's parameter
 * count, or the launch is refused with KILN_STATUS_ARGUMENT_MISMATCH. Dynamic shared memory above
 * 48 KiB is allowed: the kernel's limit is raised for this device when needed. */
KILN_API kiln_status kiln_kernel_launch(kiln_kernel* kernel, kiln_dim3 grid, kiln_dim3 block,
                                        uint32_t shared_memory_bytes, void* stream, void** args, size_t arg_count);

/* The CUkernel handle (for driver calls Kiln does not wrap) of the image loaded for the current
 * context's device; loads it if needed. Launch attributes (clusters, cooperative launches, priority),
 * kernel attributes and occupancy have calls of their own: see kiln/launch.h. */
KILN_API kiln_status kiln_kernel_handle(kiln_kernel* kernel, void** cu_kernel);

/* ---- Images for other loaders (CuPy, cuda.core, cuModuleLoadData) ------------------------------- */

/* What an image holds. */
typedef enum kiln_image_kind { KILN_IMAGE_CUBIN = 1, KILN_IMAGE_PTX = 2 } kiln_image_kind;

/* An image chosen for a kernel and a device, to load with another loader: cuModuleLoadData,
 * cuLibraryLoadData, cuda.core's ObjectCode.from_cubin / from_ptx, CuPy's RawModule. The caller sets
 * struct_size; the call fills the rest. Every pointer lives as long as the package: the bytes are
 * checked (checksum) and, if stored compressed, decoded once and kept until kiln_package_destroy.
 * A module or library loaded from them in place must be unloaded before that (the driver may read
 * the image after the load returns); copy them to keep them longer. */
typedef struct kiln_image {
  size_t struct_size;           /* the caller sets sizeof(kiln_image); fields are only ever appended */
  const void* data;             /* the checked, decoded image; lives as long as the package; 8-byte aligned */
  size_t size;                  /* bytes at data; for PTX this counts the terminating NUL (as
                                   nvrtcGetPTXSize does): data[size - 1] is '\0' */
  uint32_t kind;                /* kiln_image_kind */
  uint32_t compute_capability;  /* the device it was chosen for: major * 10 + minor */
  const char* target;           /* "sm_90", "compute_75" */
  const char* kernel_name;      /* canonical name */
  const char* lowered_name;     /* the symbol to look up in this image (cuModuleGetFunction) */
  const char* description;      /* "cubin sm_90 (exact match)" */
} kiln_image;

/* For kiln_package_select_image's `device`: the calling thread's current context's device. */
#define KILN_CURRENT_DEVICE (-1)

/* The index (for kiln_package_kernel_name and _lowered_name) of the kernel with any name the package
 * records for it, found as kiln_package_get_kernel finds it. An unknown name is
 * KILN_STATUS_KERNEL_NOT_FOUND, whose message lists the nearest names; *index is 0 after a failure.
 * No driver needed. */
KILN_API kiln_status kiln_package_find_kernel(const kiln_package* package, const char* name, size_t* index);

/* The image kiln_package_get_kernel would load for `kernel_name` on CUDA device ordinal `device`
 * (KILN_CURRENT_DEVICE: the current context's device, else device 0; no context is created),
 * checked and decoded, without loading it. Honors KILN_FORCE_TARGET. The bytes are exactly what the
 * driver accepts: a cubin, or NUL-terminated PTX text.
 * Errors: a NULL argument or struct_size below this header's sizeof(kiln_image):
 * KILN_STATUS_INVALID_ARGUMENT; an unknown kernel: KERNEL_NOT_FOUND (nearest names listed); no
 * usable driver: NO_DRIVER; a device ordinal the driver does not have, or below -1: INVALID_ARGUMENT;
 * no device at all: NO_DEVICE; a driver query that fails: DRIVER_ERROR; no image of the kernel's unit
 * runs on the device: NO_IMAGE_FOR_DEVICE; the chosen image fails its checksum, does not decode, or
 * is PTX without its NUL: IMAGE_CORRUPT.
 * After any other failure every field after struct_size is 0/NULL (a short struct is not written). */
KILN_API kiln_status kiln_package_select_image(kiln_package* package, const char* kernel_name, int device,
                                               kiln_image* out);

/* The same choice for a device of `compute_capability` (major * 10 + minor, 10 to 999; taken as not
 * integrated, so on Tegra the device itself may refuse a lower-minor cubin chosen here) whose driver is
 * `driver_version` (cuDriverGetVersion form, 13000 for CUDA 13.0; it bounds the PTX ISA accepted;
 * 0: the newest this runtime knows, CUDA 13.0, or the CUDA version that built the package if newer).
 * No driver needed. Errors as kiln_package_select_image's, less the driver's and the device's, and
 * INVALID_ARGUMENT for a compute capability or driver version out of range (a version below 0, or 1
 * to 999). */
KILN_API kiln_status kiln_package_select_image_for_arch(kiln_package* package, const char* kernel_name,
                                                        uint32_t compute_capability, int driver_version,
                                                        kiln_image* out);

/* ---- Variables ---------------------------------------------------------------------------------- */

/* The device address (a CUdeviceptr) and size of a __device__/__constant__ variable the package
 * kept, in the current context. `size` may be NULL. */
KILN_API kiln_status kiln_package_get_global(kiln_package* package, const char* name, uint64_t* device_pointer,
                                             size_t* size);

/* ---- Loading up front --------------------------------------------------------------------------- */

/* Selects and loads, for the current context's device, every image the package needs, and loads
 * every kernel into the context: later kernel requests and launches load nothing. For programs that
 * must not load lazily, e.g. before CUDA graph capture. */
KILN_API kiln_status kiln_package_preload(kiln_package* package);

/* ---- Opening by name ----------------------------------------------------------------------------- */

/* Opens the package called `name` (its file name without ".kiln"; not a path), looking, in order:
 *   1. among packages embedded in the process's modules (kiln_add_cache(... EMBED) in CMake: each
 *      registers itself with kiln_register_embedded when its module loads), preferring the one
 *      embedded in the calling module when several modules embed a package of that name;
 *   2. for <name>.kiln in the directory of the calling module: the executable or shared library
 *      whose code made this call (dladdr on the return address), not the directory of libkiln;
 *   3. for <dir>/<name>.kiln in each directory of $KILN_PACKAGE_PATH (colon-separated), in order.
 * The first file that exists is opened, as kiln_package_open_file does; a damaged one is reported,
 * not skipped. If there is none, the status is KILN_STATUS_PACKAGE_NOT_FOUND and the message lists
 * every place looked. An embedded package is used in place (as KILN_OPEN_BORROW).
 * The calling module is the one this call returns to. Call it from a function that does something
 * after it, not as `return kiln_package_open_named(...)`: GCC may compile that into a jump, and the
 * call then returns to (and looks next to) the caller's caller. kiln::Package::open is safe. */
KILN_API KILN_NOT_TAIL_CALLED kiln_status kiln_package_open_named(const char* name, kiln_package** out);

/* Registers the `size` bytes at `data`, a whole package, as the embedded package `name`. The bytes
 * are not copied: they must stay valid and unchanged until kiln_unregister_embedded. The name is
 * copied. Registering the same name and bytes again changes nothing. Called by the constructor that
 * kiln_add_cache(... EMBED) generates into the module that links the package. */
KILN_API kiln_status kiln_register_embedded(const char* name, const void* data, size_t size);

/* Removes the registration of `name` at `data` (the generated destructor calls it when the module
 * unloads). Packages opened from it must be destroyed before. Unknown registrations and NULL
 * arguments are ignored. */
KILN_API void kiln_unregister_embedded(const char* name, const void* data);

/* ---- Coverage, before a GPU run ---------------------------------------------------------------- */

/* How a kernel will run on a device. Written in stone: never renumbered, only appended. */
typedef enum kiln_coverage {
  KILN_COVERAGE_CUBIN = 1,             /* a cubin in the package runs on it */
  KILN_COVERAGE_PTX = 2,               /* PTX in the package, which the driver compiles on first load */
  KILN_COVERAGE_RUNTIME_COMPILE = 3,   /* no image for it, but the package carries the kernel's sources:
                                          compiled at run time (needs NVRTC and nvJitLink) */
  KILN_COVERAGE_NONE = 4               /* cannot run on it */
} kiln_coverage;

/* How the kernel at `index` (0 to kiln_package_kernel_count - 1) runs on a device of
 * `compute_capability` (major * 10 + minor) whose driver is `driver_version` (as for
 * kiln_package_select_image_for_arch; 0: new enough). Honors KILN_FORCE_TARGET. No driver needed, and
 * nothing is compiled: RUNTIME_COMPILE says the sources are there, not that NVRTC is.
 * Errors: NULL arguments, an index out of range or a compute capability or driver version out of
 * range: INVALID_ARGUMENT. */
KILN_API kiln_status kiln_package_kernel_coverage(kiln_package* package, size_t index,
                                                  uint32_t compute_capability, int driver_version,
                                                  kiln_coverage* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* In headers of their own, each including this one: launch attributes, kernel attributes and
 * occupancy (kiln/launch.h); programs compiled at run time, the compilers' search directories and
 * the cache's counters (kiln/compile.h, declared by the loader, served by Kiln's compile library). */

#endif /* KILN_KILN_H */
