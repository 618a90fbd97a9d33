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


_status = C.c_int
_package = C.c_void_p
_kernel = C.c_void_p
_size_p = C.POINTER(C.c_size_t)

# name: (result type, argument types). Every function the binding calls, checked when libkiln is
# loaded, so that an older library fails there and names what it lacks, not at some later call.
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
        _status, [_kernel, Dim3, Dim3, C.c_uint32, C.c_void_p, C.POINTER(C.c_void_p), C.c_size_t]),
    "kiln_kernel_handle": (_status, [_kernel, C.POINTER(C.c_void_p)]),
}


def declare(library):
    """Sets the prototypes on a loaded CDLL. Returns the names of the functions it lacks."""
    missing = []
    for name, (result, arguments) in FUNCTIONS.items():
        try:
            function = getattr(library, name)
        except AttributeError:
            missing.append(name)
            continue
        function.restype = result
        function.argtypes = arguments
    return missing
