"""Finds and loads libkiln, once: when the binding is imported (preload(), as an extension module's
library is loaded at import), or else on first use. Importing still works where the library is
absent or unusable: preload() keeps quiet, and the error comes from the first call that needs it.

Where it looks, in order (the library is libkiln.so.0 on Linux, kiln.dll on Windows):
  1. $KILN_LIBRARY, an explicit path (development). When set, nothing else is tried: silently
     falling back to another copy would run a library other than the one asked for.
  2. The library in this binding's own directory: the copy a wheel vendors beside the binding.
     If that file exists it is the one used, and a failure to load it is reported, not skipped (as
     kiln_package_open_named reports a damaged package instead of looking further).
  3. The install's library directory, for the binding as `cmake --install` lays it out
     (<prefix>/share/kiln/python/kiln): the file INSTALLED_LIBRARY_DIR beside the binding names
     that directory relative to it (../../../../lib); the install writes it, wheels never carry it.
     A library there is used, and a failure to load it reported, as for the copy beside the binding.
  4. The library through the system's search (Linux: LD_LIBRARY_PATH, ld.so.cache, ...; Windows:
     the program's directory, System32 and directories added with os.add_dll_directory).
Each copy is loaded by its full path (on Linux with RTLD_LOCAL), so two wheels that vendor their
own copies get one library each and never share or clash.

Beside it, the binding uses its optional companion in C, kiln._native (runtime/python/native), for
the calls of a first launch: _native.abi3.so beside the binding (a wheel and the install lay it
there), or the file $KILN_PYTHON_NATIVE names ("off": none). It calls the library loaded here, found
by its handle. Where there is none (Windows, another Python than CPython 3.8+), or it is of another
version, every call goes through ctypes, with the same results.
"""

import ctypes
import ntpath
import os
import posixpath
import sys
import threading

from . import _abi
from ._errors import RuntimeLibraryError, error_for_status

def library_file(platform=sys.platform):
    """The runtime library's file name on `platform` (sys.platform's spelling)."""
    return "kiln.dll" if platform == "win32" else "libkiln.so.0"


def system_search(platform=sys.platform):
    """How a message names the system's library search on `platform`."""
    return "Windows' DLL search" if platform == "win32" else "the dynamic loader's search"


LIBRARY_FILE = library_file()
# Beside the installed binding: the install's library directory, relative to the binding's.
INSTALLED_LIBRARY_DIR = "installed-library-dir"
# The runtime versions this binding works with: the same major version (what CMake's
# SameMajorVersion accepts), and no older than the first runtime with the image API.
BINDING_MAJOR = 0
MINIMUM_VERSION = 200  # 0.2.0 (the first with the image API), as KILN_VERSION spells it

_lock = threading.Lock()
_runtime = None


def version_string(version):
    return "%d.%d.%d" % (version // 10000, version // 100 % 100, version % 100)


class Runtime:
    """The loaded library with its prototypes set, and where it came from."""

    def __init__(self, library, target):
        self.lib = library
        self._target = target
        self._path = None
        self.native = None  # kiln._native bound to this library, or None: everything through ctypes

    @property
    def path(self):
        """The library file loaded. Found out on demand: it costs a dladdr and is needed only for
        messages and runtime_library_path(), not on the way to a first launch."""
        if self._path is None:
            self._path = _loaded_path(self.lib, self._target)
        return self._path

    def error(self, status, package=None):
        """The exception for a failed call: the thread's last message (read at once: the next
        call into Kiln replaces it), else the status's description."""
        message = self.lib.kiln_last_error()
        if not message and package:
            message = self.lib.kiln_package_last_error(package)
        if not message:
            message = self.lib.kiln_status_string(status)
        return error_for_status(status, message.decode("utf-8", "replace"))

    def check(self, status, package=None):
        if status != 0:
            raise self.error(status, package)

    def function(self, name, purpose):
        """An optional entry point (_abi.OPTIONAL_FUNCTIONS), or RuntimeLibraryError naming the
        runtime version it needs when this library is older."""
        function = getattr(self.lib, name, None)
        if function is None:
            since = _abi.OPTIONAL_FUNCTIONS[name][0]
            raise RuntimeLibraryError("%s needs %s, which the Kiln runtime library %s (version %s) lacks; it came "
                                      "with version %s" % (purpose, name, self.path,
                                                           version_string(self.lib.kiln_version()),
                                                           version_string(since)))
        return function


class Library:
    """A loaded libkiln whose functions are resolved and given their prototypes (_abi.FUNCTIONS,
    _abi.OPTIONAL_FUNCTIONS) when first used, then kept as attributes. A function the binding needs
    that the library lacks is reported when it is first called (RuntimeLibraryError naming it); an
    optional one reads as absent (getattr(lib, name, None) is None), as on a CDLL."""

    def __init__(self, library, version, path):
        self._library = library
        self._handle = library._handle  # as a CDLL has it (the Windows path lookup reads it)
        self._version = version
        self._path = path  # a callable: the file, found only for a message

    def __getattr__(self, name):
        try:
            function = getattr(self._library, name)
        except AttributeError:
            if name in _abi.FUNCTIONS:
                raise RuntimeLibraryError("the Kiln runtime library %s (version %s) lacks %s, which this binding needs"
                                          % (self._path(), version_string(self._version), name)) from None
            raise
        known = _abi.prototype(name)
        if known is not None:
            function.restype, function.argtypes = known
        setattr(self, name, function)  # later lookups find it without coming here
        return function


class _DlInfo(ctypes.Structure):
    """dladdr's Dl_info (<dlfcn.h>)."""

    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]


def _loaded_path(library, fallback):
    """The file the loader actually mapped (for a library found by the loader's search)."""
    if sys.platform == "win32":
        return _loaded_path_windows(library, fallback)
    try:
        dladdr = ctypes.CDLL(None).dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        info = _DlInfo()
        symbol = ctypes.cast(library.kiln_version, ctypes.c_void_p)
        if dladdr(symbol, ctypes.byref(info)) and info.fname:
            return os.path.realpath(os.fsdecode(info.fname))
    except (AttributeError, OSError):
        pass
    return fallback


def _loaded_path_windows(library, fallback):
    """GetModuleFileNameW of the loaded kiln.dll."""
    try:
        buffer = ctypes.create_unicode_buffer(32768)
        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        if kernel32.GetModuleFileNameW(ctypes.c_void_p(library._handle), buffer, len(buffer)):
            return buffer.value
    except (AttributeError, OSError):
        pass
    return fallback


def _check_absolute(variable, value, platform=sys.platform):
    """As libkiln checks the variables that name a library (util/path_variables.hpp): a relative path
    would load whatever lies there under the working directory, and a bare name whatever the
    loader's search finds first."""
    isabs = ntpath.isabs if platform == "win32" else posixpath.isabs
    if not isabs(value):
        raise RuntimeLibraryError("$%s is '%s', a relative path; it must be absolute (a relative one loads whatever "
                                  "lies there under the working directory)" % (variable, value))


def _candidate(environ=os.environ, binding_dir=None, platform=sys.platform, exists=os.path.exists):
    """What to load, how to name it in a message, and the places passed over on the way."""
    explicit = environ.get("KILN_LIBRARY")
    if explicit:
        _check_absolute("KILN_LIBRARY", explicit, platform)
        return explicit, "$KILN_LIBRARY=%s" % explicit, []
    passed = ["$KILN_LIBRARY (not set)"]
    name = library_file(platform)
    if binding_dir is None:
        binding_dir = os.path.dirname(os.path.abspath(__file__))
    join = ntpath.join if platform == "win32" else posixpath.join
    beside = join(binding_dir, name)
    if exists(beside):
        return beside, beside + " (beside the binding)", passed
    passed.append(beside + " (beside the binding): no such file")
    try:
        with open(join(binding_dir, INSTALLED_LIBRARY_DIR), encoding="utf-8") as file:
            relative = file.read().strip()
    except OSError:
        relative = None
    if relative:
        normpath = ntpath.normpath if platform == "win32" else posixpath.normpath
        installed = normpath(join(binding_dir, relative, name))
        if exists(installed):
            return installed, installed + " (the install's library directory)", passed
        passed.append(installed + " (the install's library directory): no such file")
    return name, "%s through %s" % (name, system_search(platform)), passed


def _load():
    target, description, looked = _candidate()
    try:
        # RTLD_LOCAL, where there is one: Windows has no global symbol namespace to keep out of.
        library = ctypes.CDLL(target, mode=getattr(os, "RTLD_LOCAL", 0))
    except OSError as error:
        looked.append("%s: %s" % (description, error))
        raise RuntimeLibraryError("cannot load the Kiln runtime library (%s); looked in: %s"
                                  % (LIBRARY_FILE, "; ".join(looked))) from None
    runtime = Runtime(library, target)
    # The version first: a library of another major version may lack functions or change them.
    try:
        kiln_version = library.kiln_version
    except AttributeError:
        raise RuntimeLibraryError("%s is not a Kiln runtime library: it has no kiln_version" % runtime.path) from None
    kiln_version.restype, kiln_version.argtypes = ctypes.c_uint32, []
    version = kiln_version()
    if version // 10000 != BINDING_MAJOR or version < MINIMUM_VERSION:
        raise RuntimeLibraryError("the Kiln runtime library %s is version %s; this binding needs %s or a later %d.x"
                                  % (runtime.path, version_string(version), version_string(MINIMUM_VERSION),
                                     BINDING_MAJOR))
    missing = [name for name in _abi.ESSENTIAL_FUNCTIONS if getattr(library, name, None) is None]
    if missing:
        raise RuntimeLibraryError("the Kiln runtime library %s (version %s) lacks %s, which this binding needs"
                                  % (runtime.path, version_string(version), ", ".join(missing)))
    runtime.lib = Library(library, version, lambda: runtime.path)
    runtime.native = _native_module(library._handle)
    if runtime.native is None:  # ctypes makes each first-launch call: its prototypes, now
        for name in _abi.FIRST_LAUNCH_FUNCTIONS:
            getattr(runtime.lib, name)
    from ._compile import register_wheel_compilers   # noqa: PLC0415 (it imports this module)
    register_wheel_compilers(runtime)
    return runtime


# The interface version of kiln._native this binding speaks (native.c: NATIVE_INTERFACE_VERSION).
NATIVE_INTERFACE_VERSION = 1
NATIVE_VARIABLE = "KILN_PYTHON_NATIVE"


def _native_module(library_handle, environ=os.environ):
    """kiln._native bound to the library at `library_handle`, or None. $KILN_PYTHON_NATIVE names a
    file to use, and a failure to use it is reported (as for $KILN_LIBRARY, nothing else is tried);
    "off" uses none. Unset, the copy beside the binding is used where it loads and is of this
    binding's version, and otherwise none, quietly: it only makes calls faster."""
    explicit = environ.get(NATIVE_VARIABLE)
    if explicit == "off":
        return None
    if explicit:
        _check_absolute(NATIVE_VARIABLE, explicit)
        import importlib.util  # noqa: PLC0415 (only for this development setting)
        try:
            spec = importlib.util.spec_from_file_location(__package__ + "._native", explicit)
            if spec is None:
                raise ImportError("not a module file")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except (ImportError, OSError) as error:
            raise RuntimeLibraryError("cannot load $%s=%s: %s" % (NATIVE_VARIABLE, explicit, error)) from None
        if getattr(module, "INTERFACE_VERSION", None) != NATIVE_INTERFACE_VERSION:
            raise RuntimeLibraryError("$%s=%s is kiln._native of interface %r; this binding speaks %d"
                                      % (NATIVE_VARIABLE, explicit, getattr(module, "INTERFACE_VERSION", None),
                                         NATIVE_INTERFACE_VERSION))
        if not module.bind(library_handle):
            raise RuntimeLibraryError("$%s=%s: the Kiln runtime library lacks an entry point kiln._native calls"
                                      % (NATIVE_VARIABLE, explicit))
        return module
    if sys.implementation.name != "cpython" or not sys.platform.startswith("linux"):
        return None
    try:
        from . import _native  # noqa: PLC0415 (optional: absent in many installs)
    except ImportError:
        return None
    if getattr(_native, "INTERFACE_VERSION", None) != NATIVE_INTERFACE_VERSION or not _native.bind(library_handle):
        return None
    return _native


def preload():
    """Loads the runtime at import, so that the first package open does not pay for it; a library
    that cannot be loaded is left to runtime(), which tries again and raises on the call that
    needs it (a program that only imports the binding never sees the error)."""
    try:
        runtime()
    except RuntimeLibraryError:
        pass


def runtime():
    """The loaded runtime; loads it on the first call. Raises RuntimeLibraryError."""
    global _runtime
    if _runtime is None:
        with _lock:
            if _runtime is None:
                _runtime = _load()
    return _runtime
