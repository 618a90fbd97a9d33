"""Checks the Python binding as `cmake --install` lays it out: share/kiln/python/kiln holds the .py
files, installed-library-dir and, where the build made it (KILN_TEST_NATIVE is not 0), the calls in
C, _native.abi3.so (and nothing else), and, imported from there with neither KILN_LIBRARY nor
LD_LIBRARY_PATH nor KILN_PYTHON_NATIVE set, it finds and loads the prefix's lib/libkiln.so.0, and
uses the _native.abi3.so beside it.

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
    native = os.environ.get("KILN_TEST_NATIVE") != "0"
    expected = sorted([name for name in os.listdir(SOURCE) if name.endswith(".py")] + ["installed-library-dir"] +
                      (["_native.abi3.so"] if native else []))
    found = sorted(os.listdir(installed))
    if found != expected:
        fail("%s holds %s; expected the binding's .py files, installed-library-dir%s %s"
             % (installed, found, " and _native.abi3.so" if native else "", expected))
    library = os.path.join(prefix, "lib", "libkiln.so.0")
    code = ("import kiln; from kiln import _library; print(kiln.__file__); print(kiln.runtime_version()); "
            "print(kiln.runtime_library_path()); print(getattr(_library.runtime().native, '__file__', None))")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(installed), PYTHONDONTWRITEBYTECODE="1")
    for name in ("KILN_LIBRARY", "LD_LIBRARY_PATH", "KILN_PYTHON_NATIVE"):
        env.pop(name, None)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        fail("importing the installed binding failed:\n" + result.stdout + result.stderr)
    module_file, version, loaded, native_file = result.stdout.split()
    expected_native = os.path.join(installed, "_native.abi3.so") if native else "None"
    if native_file != expected_native:
        fail("the installed binding's calls in C are %s, not %s" % (native_file, expected_native))
    if os.path.dirname(module_file) != installed:
        fail("imported %s, not the installed binding in %s" % (module_file, installed))
    if version != os.environ["KILN_TEST_VERSION"] or os.path.realpath(loaded) != os.path.realpath(library):
        fail("the installed binding loaded %s (version %s), not %s" % (loaded, version, library))
    print("check_installed_binding: %s: %s, with %s (version %s)" % (installed, ", ".join(found), loaded, version))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail("usage: check_installed_binding.py PREFIX")
    main(sys.argv[1])
