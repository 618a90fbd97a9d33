"""The C ABI of libkiln (runtime/include/kiln/kiln.h) as ctypes declarations."""

import ctypes as C

KILN_CURRENT_DEVICE = -1
KILN_OPEN_COPY = 0
KILN_PARAMS_UNKNOWN = C.c_size_t(-1).value

# kiln_image_kind (kiln.h: written in stone).
IMAGE_KINDS = {1: "cubin", 2: "ptx"}


class ImageStruct(C.Structure):
    """kiln_image. Fields are only ever appended, and the caller sets struct_size, so a newer
    runtime keeps filling what this binding knows."""

    _fields_ = [
        ("struct_size", C.c_size_t),
        ("data", C.c_void_p),
        ("size", C.c_size_t),
        ("kind", C.c_uint32),
        ("compute_capability", C.c_uint32),
        ("target", C.c_char_p),
        ("kernel_name", C.c_char_p),
        ("lowered_name", C.c_char_p),
        ("description", C.c_char_p),
    ]


class Dim3(C.Structure):
    _fields_ = [("x", C.c_uint32), ("y", C.c_uint32), ("z", C.c_uint32)]


class LaunchConfigStruct(C.Structure):
    """kiln_launch_config (kiln/launch.h, runtime 0.3.0+). Versioned like kiln_image: struct_size is
    set to this binding's size, and a newer runtime reads only that much."""

    _fields_ = [
        ("struct_size", C.c_size_t),
        ("grid", Dim3),
        ("block", Dim3),
        ("shared_memory_bytes", C.c_uint32),
        ("stream", C.c_void_p),
        ("cluster", Dim3),
        ("cooperative", C.c_int32),
        ("has_priority", C.c_int32),
        ("priority", C.c_int32),
    ]


class ProgramHeaderStruct(C.Structure):
    """kiln_program_header (kiln/compile.h)."""

    _fields_ = [("name", C.c_char_p), ("text", C.c_char_p)]


class ProgramStruct(C.Structure):
    """kiln_program (kiln/compile.h, runtime 0.4.0+), versioned by struct_size like kiln_image."""

    _fields_ = [
        ("struct_size", C.c_size_t),
        ("name", C.c_char_p),
        ("source", C.c_char_p),
        ("headers", C.POINTER(ProgramHeaderStruct)),
        ("header_count", C.c_size_t),
        ("include_dirs", C.POINTER(C.c_char_p)),
        ("include_dir_count", C.c_size_t),
        ("options", C.POINTER(C.c_char_p)),
        ("option_count", C.c_size_t),
        ("kernels", C.POINTER(C.c_char_p)),
        ("kernel_count", C.c_size_t),
        ("globals", C.POINTER(C.c_char_p)),
        ("global_count", C.c_size_t),
    ]


class CacheStatsStruct(C.Structure):
    """kiln_cache_stats (kiln/compile.h, runtime 0.4.0+)."""

    _fields_ = [("struct_size", C.c_size_t)] + [
        (name, C.c_uint64) for name in ("package_hits", "memory_hits", "cache_hits", "compiles", "compile_failures",
                                        "compiled_bytes", "cache_bytes_read")]


# kiln_coverage (kiln/compile.h: written in stone).
COVERAGE = {1: "cubin", 2: "ptx", 3: "runtime-compile", 4: "none"}


# kiln_kernel_attribute_kind (kiln/launch.h: written in stone), by the names Kernel.attribute takes.
KERNEL_ATTRIBUTES = {
    "max_threads_per_block": 1, "registers": 2, "static_shared_bytes": 3, "const_bytes": 4, "local_bytes": 5,
    "max_dynamic_shared_bytes": 6, "ptx_version": 7, "binary_version": 8, "cache_mode_ca": 9,
    "preferred_shared_carveout": 10, "cluster_size_must_be_set": 11, "required_cluster_width": 12,
    "required_cluster_height": 13, "required_cluster_depth": 14, "non_portable_cluster_size_allowed": 15,
    "cluster_scheduling_policy": 16,
}


_status = C.c_int
_package = C.c_void_p
_kernel = C.c_void_p
_size_p = C.POINTER(C.c_size_t)

# name: (result type, argument types). Every function the binding calls. Each gets its prototype when
# it is first called (_library.Library), except FIRST_LAUNCH_FUNCTIONS: resolving and declaring all of
# them when libkiln is loaded cost more than the calls of a first launch (about 0.25 ms).
FUNCTIONS = {
    "kiln_version": (C.c_uint32, []),
    "kiln_status_string": (C.c_char_p, [_status]),
    "kiln_last_error": (C.c_char_p, []),
    "kiln_package_open_file": (_status, [C.c_char_p, C.POINTER(_package)]),
    "kiln_package_open_memory": (_status, [C.c_void_p, C.c_size_t, C.c_uint32, C.c_char_p, C.POINTER(_package)]),
    "kiln_package_destroy": (None, [_package]),
    "kiln_package_last_error": (C.c_char_p, [_package]),
    "kiln_package_kernel_count": (C.c_size_t, [_package]),
    "kiln_package_kernel_name": (C.c_char_p, [_package, C.c_size_t]),
    "kiln_package_kernel_lowered_name": (C.c_char_p, [_package, C.c_size_t]),
    "kiln_package_target_count": (C.c_size_t, [_package]),
    "kiln_package_target": (C.c_char_p, [_package, C.c_size_t]),
    "kiln_package_find_kernel": (_status, [_package, C.c_char_p, _size_p]),
    "kiln_package_select_image": (_status, [_package, C.c_char_p, C.c_int, C.POINTER(ImageStruct)]),
    "kiln_package_select_image_for_arch": (
        _status, [_package, C.c_char_p, C.c_uint32, C.c_int, C.POINTER(ImageStruct)]),
    "kiln_package_get_kernel": (_status, [_package, C.c_char_p, C.POINTER(_kernel)]),
    "kiln_package_get_global": (_status, [_package, C.c_char_p, C.POINTER(C.c_uint64), _size_p]),
    "kiln_package_preload": (_status, [_package]),
    "kiln_kernel_params": (_status, [_kernel, _size_p, _size_p, _size_p, C.c_size_t]),
    "kiln_kernel_name": (C.c_char_p, [_kernel]),
    "kiln_kernel_launch": (
        _status, [_kernel, Dim3, Dim3, C.c_uint32, C.c_void_p, C.c_void_p, C.c_size_t]),   # void** as an address
    "kiln_kernel_handle": (_status, [_kernel, C.POINTER(C.c_void_p)]),
}

# Functions of later runtimes, with the version that brought them. A runtime without them still
# loads: only the calls that need them fail, naming the version they need (Runtime.function).
OPTIONAL_FUNCTIONS = {
    "kiln_kernel_launch_ex": (300, _status, [_kernel, C.POINTER(LaunchConfigStruct), C.c_void_p,
                                             C.c_size_t]),
    "kiln_kernel_attribute": (300, _status, [_kernel, C.c_int, C.POINTER(C.c_int)]),
    "kiln_kernel_max_active_blocks": (300, _status, [_kernel, C.c_int, C.c_size_t, C.POINTER(C.c_int)]),
    "kiln_kernel_suggest_block_size": (300, _status, [_kernel, C.c_size_t, C.c_int, C.POINTER(C.c_int),
                                                      C.POINTER(C.c_int)]),
    "kiln_program_compile": (400, _status, [C.POINTER(ProgramStruct), C.POINTER(_package)]),
    "kiln_compiler_add_search_dir": (400, _status, [C.c_char_p]),
    "kiln_cache_get_stats": (400, _status, [C.POINTER(CacheStatsStruct)]),
    "kiln_package_kernel_coverage": (400, _status, [_package, C.c_size_t, C.c_uint32, C.c_int,
                                                    C.POINTER(C.c_int)]),
    "kiln_kernel_lowered_name": (400, C.c_char_p, [_kernel]),
}


# The functions on the way from opening a package to a kernel's first launch (through the binding, CuPy
# or cuda.core): resolved and declared when libkiln is loaded, at import, since each costs 10-15 us
# the first time (dlsym and ctypes' function object) and a program that opens a package launches.
FIRST_LAUNCH_FUNCTIONS = ("kiln_package_open_file", "kiln_package_get_kernel", "kiln_kernel_name",
                          "kiln_kernel_params", "kiln_kernel_launch", "kiln_package_find_kernel",
                          "kiln_package_select_image")

# What the binding cannot report a failure without: checked when libkiln is loaded, so that a
# library lacking them is refused there, naming them.
ESSENTIAL_FUNCTIONS = ("kiln_status_string", "kiln_last_error", "kiln_package_last_error")


def prototype(name):
    """(result type, argument types) of a function the binding knows, or None."""
    known = FUNCTIONS.get(name)
    if known is not None:
        return known
    optional = OPTIONAL_FUNCTIONS.get(name)
    return None if optional is None else optional[1:]
