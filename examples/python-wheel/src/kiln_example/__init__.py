"""kiln_example: CUDA kernels compiled when this wheel was built and shipped inside it.

The kernels live in ``kernels.kiln`` next to this file (built by Kiln's generator for every GPU
architecture the wheel targets); Kiln's Python binding and runtime library are vendored in
``kiln_example/_kiln``, so installing the wheel installs nothing outside ``kiln_example/`` and
nothing is compiled at run time. See ``python -m kiln_example`` for a self-check.

    import cupy, kiln_example
    x = cupy.arange(1000, dtype=cupy.float32); y = cupy.ones_like(x)
    kiln_example.saxpy(2.0, x, y)                       # through Kiln's binding
    kiln_example.saxpy(2.0, x, y, route="cupy")         # a cupy.RawKernel from the same image
    kiln_example.saxpy(2.0, x, y, route="cuda.core")    # a cuda.core Kernel from the same image
"""
import os
import pathlib
import threading
from importlib import resources

from . import _kiln as kiln
from . import _providers

__version__ = "0.1.0"
__all__ = ["PACKAGE_FILE", "ROUTES", "block_sum", "kiln", "package", "saxpy", "scale"]

# The package file the wheel installs in this package (CMakeLists.txt: install(FILES ... RENAME)),
# found as a resource of the package: importlib.resources also finds it where it is not beside
# __file__, as in an editable install.
PACKAGE_FILE = resources.files(__package__) / "kernels.kiln"
# Where the file is on disk, as text: the path package() opens (a Path's first str() costs about
# 35 us, which a first launch need not wait for), its folder, and the provider wheels' stamps there,
# listed at import (the listing is the same work later); package() checks them.
_PACKAGE_PATH = str(PACKAGE_FILE) if isinstance(PACKAGE_FILE, pathlib.Path) else None
_PACKAGE_DIRECTORY = os.path.dirname(_PACKAGE_PATH) if _PACKAGE_PATH is not None else None


def _listed_stamps():
    try:
        return _providers.stamps(_PACKAGE_DIRECTORY) if _PACKAGE_DIRECTORY is not None else None
    except OSError:
        return None  # package() lists again, and reports what it cannot read


_PROVIDER_STAMPS = _listed_stamps()

_lock = threading.Lock()
_package = None


def package():
    """The wheel's Kiln package, opened on first use and kept open.

    Opening reads the file's index: it needs no GPU and no driver, so listing
    kernels works anywhere; the driver is loaded when a kernel is first asked for.
    A provider wheel (kiln-example-wheel-cc<major>) of another version than this
    package raises _providers.ProviderVersionError naming both.
    """
    global _package
    with _lock:
        if _package is None:
            if _PACKAGE_PATH is not None:
                # A file on disk (a regular or an editable install): what as_file would give,
                # without as_file's first call, which costs about 0.2 ms of a first launch.
                _providers.check(_PACKAGE_DIRECTORY, __version__, _PROVIDER_STAMPS)
                _package = kiln.Package.open(_PACKAGE_PATH)
            else:
                # A package in a zip: as_file extracts a copy for the call; the open package keeps
                # the file open, so it stays readable after the context ends.
                with resources.as_file(PACKAGE_FILE) as path:
                    _providers.check(path.parent, __version__)
                    _package = kiln.Package.open(path)
        return _package


# After package(): ops calls it.
from .ops import ROUTES, block_sum, saxpy, scale  # noqa: E402
