"""Kiln's Python binding: open a Kiln package, pick the image each GPU runs, and launch its
kernels through libkiln, CuPy or cuda.core, with no compiler at run time.

Pure Python over libkiln's C ABI (ctypes). Importing loads libkiln (see _library for where it
looks; where it cannot be loaded, the import still succeeds and the first call that needs it
raises RuntimeLibraryError) and never libcuda, which the first call that needs a GPU loads, so this
imports and lists packages on machines with no GPU and no driver. Imports inside the
binding are relative, so the directory can be vendored into another package (mypkg/_kiln/) with
its own libkiln.so.0 beside it.

    import kiln
    with kiln.open("kernels.kiln") as package:
        saxpy = package.kernel("saxpy")
        saxpy((blocks,), (256,), (2.0, x, y, n))   # x, y: CuPy arrays; n: int
"""

from ._compile import cache_stats, compile_program
from ._errors import (ArgumentMismatchError, CompileError, DriverError, InvalidArgumentError, KernelNotFoundError,
                      KilnError, MissingModuleError, NoCompilerError, NoDeviceError, NoDriverError,
                      NoImageForDeviceError, PackageError, RuntimeLibraryError)
from ._image import Image, KernelInfo
from ._kernel import Kernel
from ._names import name_of
from ._package import Package
from . import _library
from ._abi import KERNEL_ATTRIBUTES

__version__ = "0.4.0"

__all__ = [
    "ArgumentMismatchError", "CompileError", "DriverError", "Image", "InvalidArgumentError", "Kernel", "KernelInfo",
    "KernelNotFoundError", "KilnError", "MissingModuleError", "NoCompilerError", "NoDeviceError", "NoDriverError",
    "NoImageForDeviceError", "Package", "PackageError", "RuntimeLibraryError", "KERNEL_ATTRIBUTES", "cache_stats",
    "compile_program", "name_of", "open", "runtime_library_path", "runtime_version",
]


def open(path):  # noqa: A001 (like io.open: the module's main entry point)
    """Opens the package file at `path`: Package.open(path)."""
    return Package.open(path)


def runtime_version():
    """The version of the libkiln actually loaded ("0.4.0"); loads it."""
    runtime = _library.runtime()
    return _library.version_string(runtime.lib.kiln_version())


def runtime_library_path():
    """The path of the libkiln file this binding loaded; loads it."""
    return _library.runtime().path


# Last, once every module is in place: the load registers the NVIDIA wheels' compilers (_compile).
_library.preload()
