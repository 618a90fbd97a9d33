"""Checks the Python binding as `cmake --install` lays it out: share/kiln/python/kiln holds the .py
files and installed-library-dir (and nothing else), and, imported from there with neither
KILN_LIBRARY nor LD_LIBRARY_PATH set, it finds and loads the prefix's lib/libkiln.so.0.

    python check_installed_binding.py PREFIX       (ctest: python_installed_binding)
"""

import os
import subprocess
import sys

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python",
                                       "kiln"))


def fail(message):
    print("check_installed_binding: " + message)
    sys.exit(1)


def main(prefix):
    installed = os.path.join(prefix, "share", "kiln", "python", "kiln")
    if not os.path.isdir(installed):
        fail("the install has no %s" % installed)
    expected = sorted([name for name in os.listdir(SOURCE) if name.endswith(".py")] + ["installed-library-dir"])
    found = sorted(os.listdir(installed))
    if found != expected:
        fail("%s holds %s; expected the binding's .py files and installed-library-dir %s" % (installed, found, expected))
    library = os.path.join(prefix, "lib", "libkiln.so.0")
    code = ("import kiln; print(kiln.__file__); print(kiln.runtime_version()); print(kiln.runtime_library_path())")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(installed), PYTHONDONTWRITEBYTECODE="1")
    env.pop("KILN_LIBRARY", None)
    env.pop("LD_LIBRARY_PATH", None)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        fail("importing the installed binding failed:\n" + result.stdout + result.stderr)
    module_file, version, loaded = result.stdout.split()
    if os.path.dirname(module_file) != installed:
        fail("imported %s, not the installed binding in %s" % (module_file, installed))
    if version != os.environ["KILN_TEST_VERSION"] or os.path.realpath(loaded) != os.path.realpath(library):
        fail("the installed binding loaded %s (version %s), not %s" % (loaded, version, library))
    print("check_installed_binding: %s: %s, with %s (version %s)" % (installed, ", ".join(found), loaded, version))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: check_installed_binding.py PREFIX")
    main(sys.argv[1])
