"""The hint a missing kernel gets where the package is likely stale: an editable install.

In an editable install (pip install -e, scikit-build-core's redirect) the Python files are used from
the source tree while the package file was built and installed when the install ran. A kernel the
Python code asks for after an edit is then missing from the package with nothing to say why. A
package file that is not beside the Python file asking, and older than it, is that case (an ordinary
install puts both in one directory), so the error says the package is stale and how to rebuild it."""

import os
import sys

_BINDING_DIR = os.path.dirname(os.path.abspath(__file__))


def _caller_file():
    """The source file of the nearest frame outside the binding, or None."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename and not filename.startswith("<") and os.path.dirname(os.path.abspath(filename)) != _BINDING_DIR:
            return filename
        frame = frame.f_back
    return None


def stale_hint(package_path, name):
    """The sentence to add to the KernelNotFoundError for `name`, or "" where the package at
    `package_path` (None: opened from memory) is not known to be older than the code asking."""
    caller = _caller_file()
    if package_path is None or caller is None:
        return ""
    try:
        package_dir = os.path.dirname(os.path.realpath(package_path))
        if package_dir == os.path.dirname(os.path.realpath(caller)):
            return ""
        built, edited = os.path.getmtime(package_path), os.path.getmtime(caller)
    except OSError:
        return ""
    if edited <= built:
        return ""
    return ("; %s was built before %s last changed and is not beside it, as in an editable install "
            "(pip install -e), which does not rebuild the package when the Python code changes: the package "
            "is stale and lacks %r; install again (pip install -e .) to rebuild it, or let scikit-build-core "
            "rebuild it on import (editable.rebuild = true, with a build-dir)" % (package_path, caller, name))
