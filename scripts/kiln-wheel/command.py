"""The `kiln` command of Kiln's pip wheel (kiln-cuda): the console script pip writes runs this, which
replaces its own process with the kiln binary inside the wheel (kiln/_prefix/bin/kiln), given the
same arguments. With exec, not a child process, the exit status and the signals are the binary's
own, and no Python stays in memory while kiln builds. scripts/build-kiln-wheel.py copies this file
to kiln/_command.py.
"""
import os
import sys


def binary():
    """The kiln executable this wheel ships."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_prefix", "bin", "kiln")


def main():
    path = binary()
    # argv[0] is the binary's path: kiln finds its parser and its worker processes from
    # /proc/self/exe, and names itself "kiln" in messages whatever argv[0] says.
    try:
        os.execv(path, [path, *sys.argv[1:]])
    except OSError as error:
        sys.exit(f"kiln: cannot run {path}: {error.strerror} (a damaged install of kiln-cuda?)")
