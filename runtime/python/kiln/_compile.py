"""Run-time compilation (kiln/compile.h): programs from strings, the NVIDIA wheels' compilers, the
cache's counters. Everything compiled goes through the user's cache (docs/runtime.md)."""

import ctypes
import os
import sys

from . import _abi, _library
from ._errors import InvalidArgumentError

# Where the NVIDIA wheels put libnvrtc and libnvJitLink, under site-packages/nvidia/: one directory for
# CUDA 13's wheels (nvidia-cuda-nvrtc, nvidia-nvjitlink), one per wheel before.
def wheel_library_dirs(platform=sys.platform):
    """Where the nvidia-* wheels keep NVRTC and nvJitLink, under the `nvidia` package: lib/ on
    Linux; bin/ on Windows, where DLLs go (CUDA 13's wheels put theirs in bin/x86_64). The Windows
    places are taken from how NVIDIA lays the wheels out, not from a Windows machine: untried."""
    if platform == "win32":
        return ("cu13/bin/x86_64", "cu13/bin", "cuda_nvrtc/bin", "nvjitlink/bin")
    return ("cu13/lib", "cuda_nvrtc/lib", "nvjitlink/lib")


_WHEEL_LIBRARY_DIRS = wheel_library_dirs()


def nvidia_wheel_library_dirs():
    """The library directories of the nvidia-* wheels installed in this environment that may hold
    NVRTC or nvJitLink, in search order: each sys.path entry's nvidia/ (the wheels' namespace
    package), as the import system would find it. Imports nothing and asks the import system
    nothing: a few stats, where importlib.util.find_spec("nvidia") costs about 0.1 ms, on the way
    to every first launch."""
    found = []
    for entry in sys.path:
        # Absolute: "" (the working directory, where the import system looks now) must not become
        # whatever directory the process is in when libkiln loads the compilers.
        root = os.path.abspath(os.path.join(entry or os.curdir, "nvidia"))
        if not os.path.isdir(root):
            continue
        for relative in _WHEEL_LIBRARY_DIRS:
            path = os.path.join(root, *relative.split("/"))
            if path not in found and os.path.isdir(path):
                found.append(path)
    return found


def register_wheel_compilers(runtime):
    """Tells libkiln where the wheels' compilers are (before $CUDA_PATH in its search); a runtime
    older than 0.4.0 has no run-time compilation and is left alone."""
    add = getattr(runtime.lib, "kiln_compiler_add_search_dir", None)
    if add is None:
        return
    for directory in nvidia_wheel_library_dirs():
        runtime.check(add(os.fsencode(directory)))


_COUNT_FIELDS = {"include_dirs": "include_dir_count", "options": "option_count", "kernels": "kernel_count",
                 "globals": "global_count"}


def _strings(values, what):
    if isinstance(values, (str, bytes)):
        raise TypeError("%s must be a list of str, not a single %s" % (what, type(values).__name__))
    encoded = []
    for value in values:
        text = os.fspath(value) if what == "include_dirs" else value
        if not isinstance(text, str):
            raise TypeError("%s must hold str, not %s" % (what, type(text).__name__))
        if "\0" in text:
            raise InvalidArgumentError("%s entries hold no NUL character: %r" % (what, text))
        encoded.append(text.encode("utf-8"))
    array = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
    return array, len(encoded)


def compile_program(source, *, kernels=(), globals=(), headers=None, include_dirs=(), options=(), name=None):
    """Compiles CUDA C++ `source` for the current device and returns it as a Package: kernel(expr) and
    global_address(name) work as on a package file. `headers` maps names to text (found by #include),
    `include_dirs` are searched after them, `options` are NVRTC's (not -arch). Cached under a key of
    every input, headers read from disk included: raises CompileError with NVRTC's log, or
    NoCompilerError when NVRTC cannot be loaded (or KILN_JIT=0)."""
    from ._package import Package   # noqa: PLC0415 (Package imports this module's siblings)

    runtime = _library.runtime()
    function = runtime.function("kiln_program_compile", "kiln.compile_program")
    if not isinstance(source, str):
        raise TypeError("source must be a str, not %s" % type(source).__name__)
    program = _abi.ProgramStruct()
    program.struct_size = ctypes.sizeof(_abi.ProgramStruct)
    label = name if name is not None else "program.cu"
    keep = []   # every buffer the struct points to, alive until the call returns
    program.name = os.fsencode(os.fspath(label))
    program.source = source.encode("utf-8")
    header_items = list((headers or {}).items())
    header_array = (_abi.ProgramHeaderStruct * max(len(header_items), 1))()
    for i, (header_name, text) in enumerate(header_items):
        if not isinstance(header_name, str) or not isinstance(text, str):
            raise TypeError("headers must map str names to str text")
        header_array[i].name = header_name.encode("utf-8")
        header_array[i].text = text.encode("utf-8")
    program.headers, program.header_count = header_array, len(header_items)
    for field, values in (("include_dirs", include_dirs), ("options", options), ("kernels", kernels),
                          ("globals", globals)):
        array, count = _strings(values, field)
        keep.append(array)
        setattr(program, field, array)
        setattr(program, _COUNT_FIELDS[field], count)
    handle = ctypes.c_void_p()
    runtime.check(function(ctypes.byref(program), ctypes.byref(handle)))
    return Package(handle.value, runtime, str(label))


def cache_stats():
    """What this process's kernel lookups and run-time compiles did: a dict of package_hits,
    memory_hits, cache_hits, compiles, compile_failures, compiled_bytes, cache_bytes_read."""
    runtime = _library.runtime()
    function = runtime.function("kiln_cache_get_stats", "kiln.cache_stats")
    stats = _abi.CacheStatsStruct()
    stats.struct_size = ctypes.sizeof(_abi.CacheStatsStruct)
    runtime.check(function(ctypes.byref(stats)))
    return {name: getattr(stats, name) for name, _ in _abi.CacheStatsStruct._fields_[1:]}
