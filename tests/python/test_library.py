"""Finding and loading libkiln: importing loads libkiln where it can and never libcuda, and works
without either; where libkiln cannot be loaded, the first call that needs it says every place it
looked; wrong libraries are refused."""

import os
import shutil

import pytest

from support import BINDING_DIR, run_python

# Runs in a fresh interpreter: prints what the first call raised, and the mapped libraries.
PROBE = """
import kiln, sys
mapped = open("/proc/self/maps").read()
print("after import: libkiln mapped:", "libkiln" in mapped, "libcuda mapped:", "libcuda" in mapped)
try:
    print("version", kiln.runtime_version(), "from", kiln.runtime_library_path())
except kiln.KilnError as error:
    print(type(error).__name__ + ":", error)
"""


def copy_binding(directory, with_library=None):
    """The binding's .py files in directory/kiln, and libkiln.so.0 beside them if given."""
    target = directory / "kiln"
    shutil.copytree(BINDING_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    if with_library:
        shutil.copy(with_library, target / "libkiln.so.0")
    return target


def probe(site, **env):
    changes = {"PYTHONPATH": str(site), "LD_LIBRARY_PATH": None, "KILN_LIBRARY": None}
    changes.update(env)
    result = run_python(PROBE, changes)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_needs_no_libkiln_and_the_error_names_every_place(tmp_path):
    binding = copy_binding(tmp_path)
    output = probe(tmp_path)
    assert "after import: libkiln mapped: False libcuda mapped: False" in output
    assert "RuntimeLibraryError: cannot load the Kiln runtime library (libkiln.so.0); looked in: " in output
    assert "$KILN_LIBRARY (not set)" in output
    assert "%s (beside the binding): no such file" % (binding / "libkiln.so.0") in output
    assert "libkiln.so.0 through the dynamic loader's search: " in output


def test_import_loads_libkiln_and_declares_the_first_launch_functions(tmp_path, runtime_library):
    copy_binding(tmp_path, with_library=runtime_library)
    script = """
import kiln
from kiln import _abi, _library
mapped = open("/proc/self/maps").read()
print("libkiln mapped:", "libkiln" in mapped, "libcuda mapped:", "libcuda" in mapped)
declared = vars(_library._runtime.lib)
print("declared:", all(name in declared for name in _abi.FIRST_LAUNCH_FUNCTIONS))
print("lazy:", "kiln_package_preload" in declared)
print("native:", _library._runtime.native)
"""
    # No kiln._native: ctypes makes a first launch's calls, so their prototypes are declared at load.
    result = run_python(script, {"PYTHONPATH": str(tmp_path), "LD_LIBRARY_PATH": None, "KILN_LIBRARY": None,
                                 "KILN_PYTHON_NATIVE": None})
    assert result.returncode == 0, result.stderr
    assert "libkiln mapped: True libcuda mapped: False" in result.stdout
    assert "declared: True" in result.stdout
    assert "lazy: False" in result.stdout   # the others still get their prototypes when first called
    assert "native: None" in result.stdout


NATIVE_PROBE = """
import kiln
from kiln import _library
native = _library.runtime().native
print("native:", None if native is None else native.__file__)
"""


@pytest.mark.skipif(os.environ.get("KILN_TEST_NATIVE") == "0", reason="this build has no kiln._native")
def test_the_calls_in_c_beside_the_binding_are_used(tmp_path, runtime_library):
    binding = copy_binding(tmp_path, with_library=runtime_library)
    shutil.copy(os.environ["KILN_PYTHON_NATIVE"], binding / "_native.abi3.so")
    settings = {"PYTHONPATH": str(tmp_path), "LD_LIBRARY_PATH": None, "KILN_LIBRARY": None, "KILN_PYTHON_NATIVE": None}
    assert "native: %s" % (binding / "_native.abi3.so") in run_python(NATIVE_PROBE, settings).stdout
    # Turned off by the variable.
    off = run_python(NATIVE_PROBE, dict(settings, KILN_PYTHON_NATIVE="off"))
    assert "native: None" in off.stdout, off.stderr


def test_calls_in_c_beside_the_binding_that_do_not_load_leave_ctypes_to_make_them(tmp_path, runtime_library):
    # A file that is not a module for this Python (here: not one at all) is passed over quietly:
    # the module only makes calls faster, and ctypes makes the same ones.
    binding = copy_binding(tmp_path, with_library=runtime_library)
    (binding / "_native.abi3.so").write_bytes(b"not an ELF file")
    settings = {"PYTHONPATH": str(tmp_path), "LD_LIBRARY_PATH": None, "KILN_LIBRARY": None, "KILN_PYTHON_NATIVE": None}
    result = run_python(NATIVE_PROBE + "print('version', kiln.runtime_version())\n", settings)
    assert "native: None" in result.stdout and "version " in result.stdout, result.stderr


def test_an_explicit_library_that_is_missing_is_not_replaced(tmp_path, runtime_library):
    copy_binding(tmp_path, with_library=runtime_library)  # a usable copy beside it is not used
    missing = tmp_path / "nowhere" / "libkiln.so.0"
    output = probe(tmp_path, KILN_LIBRARY=str(missing))
    assert "RuntimeLibraryError: cannot load the Kiln runtime library" in output
    assert "$KILN_LIBRARY=%s: " % missing in output
    assert "beside the binding" not in output


@pytest.mark.parametrize("variable", ["KILN_LIBRARY", "KILN_PYTHON_NATIVE"])
def test_a_relative_explicit_path_is_refused(tmp_path, runtime_library, variable):
    # Relative, it would load whatever lies there under the working directory: a planted file there
    # is neither loaded nor replaced by the copy beside the binding.
    copy_binding(tmp_path, with_library=runtime_library)
    (tmp_path / "planted").mkdir()
    shutil.copy(runtime_library, tmp_path / "planted" / "libkiln.so.0")
    relative = os.path.join("planted", "libkiln.so.0")
    result = run_python(PROBE, {"PYTHONPATH": str(tmp_path), "LD_LIBRARY_PATH": None, "KILN_LIBRARY": None,
                                "KILN_PYTHON_NATIVE": None, variable: relative}, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "RuntimeLibraryError: $%s is '%s', a relative path; it must be absolute" % (variable, relative) \
        in result.stdout, result.stdout
    assert "version" not in result.stdout


def test_the_copy_beside_the_binding_is_used(tmp_path, runtime_library):
    binding = copy_binding(tmp_path, with_library=runtime_library)
    output = probe(tmp_path)
    assert "version %s from %s" % (os.environ["KILN_TEST_VERSION"], binding / "libkiln.so.0") in output


def test_a_copy_found_by_the_loader_is_named_by_its_full_path(tmp_path, runtime_library):
    copy_binding(tmp_path)
    library_dir = tmp_path / "lib"
    library_dir.mkdir()
    shutil.copy(runtime_library, library_dir / "libkiln.so.0")
    output = probe(tmp_path, LD_LIBRARY_PATH=str(library_dir))
    # Not the bare name it was loaded by: the file the loader mapped (dladdr).
    mapped = os.path.realpath(library_dir / "libkiln.so.0")
    assert "version %s from %s\n" % (os.environ["KILN_TEST_VERSION"], mapped) in output


def installed_binding(prefix):
    """The binding as `cmake --install` lays it out under prefix: share/kiln/python/kiln, with the
    file naming the install's library directory."""
    site = prefix / "share" / "kiln" / "python"
    binding = copy_binding(site)
    (binding / "installed-library-dir").write_text("../../../../lib\n")
    return site


def test_the_installed_binding_loads_the_library_of_its_install(tmp_path, runtime_library):
    site = installed_binding(tmp_path)
    (tmp_path / "lib").mkdir()
    shutil.copy(runtime_library, tmp_path / "lib" / "libkiln.so.0")
    output = probe(site)
    assert "version %s from %s\n" % (os.environ["KILN_TEST_VERSION"], tmp_path / "lib" / "libkiln.so.0") in output


def test_an_installed_binding_without_its_library_names_where_it_looked(tmp_path):
    site = installed_binding(tmp_path)
    output = probe(site)
    assert "%s (the install's library directory): no such file" % (tmp_path / "lib" / "libkiln.so.0") in output
    assert "libkiln.so.0 through the dynamic loader's search: " in output


def test_a_damaged_copy_beside_the_binding_is_reported(tmp_path):
    binding = copy_binding(tmp_path)
    (binding / "libkiln.so.0").write_bytes(b"not a library")
    output = probe(tmp_path)
    assert "%s (beside the binding): " % (binding / "libkiln.so.0") in output
    assert "through the dynamic loader" not in output  # reported, not skipped


@pytest.mark.parametrize("variable, expected", [
    ("KILN_TEST_FAKE_NEWER", "is version 1.0.0; this binding needs 0.2.0 or a later 0.x"),
    ("KILN_TEST_FAKE_INCOMPLETE", "(version %s) lacks kiln_status_string, kiln_last_error" % os.environ.get("KILN_TEST_VERSION")),
])
def test_wrong_libraries_are_refused(tmp_path, variable, expected):
    fake = os.environ.get(variable)
    if not fake:
        pytest.fail("%s is not set: ctest sets it to a fake libkiln (tests/python/fake_runtime.c)" % variable)
    copy_binding(tmp_path)
    output = probe(tmp_path, KILN_LIBRARY=fake)
    assert "RuntimeLibraryError: the Kiln runtime library %s " % os.path.realpath(fake) in output
    assert expected in output


def test_a_library_that_is_not_kiln_is_refused(tmp_path):
    with open("/proc/self/maps") as maps:  # the C library this process runs with: a real library, not Kiln
        libc = next(line.split()[-1] for line in maps if os.path.basename(line.split()[-1]).startswith("libc.so"))
    copy_binding(tmp_path)
    output = probe(tmp_path, KILN_LIBRARY=libc)
    assert "RuntimeLibraryError: %s is not a Kiln runtime library: it has no kiln_version" % libc in output


def test_listing_a_package_loads_no_driver(package_path):
    # With the driver's default name (no KILN_LIBCUDA): on a GPU machine libcuda exists, and
    # opening, listing and selecting by architecture must still not load it.
    code = """
import kiln
with kiln.open(%r) as package:
    names = package.kernel_names
    image = package.image("saxpy", arch=90)
print("libcuda mapped:", "libcuda" in open("/proc/self/maps").read())
""" % package_path
    result = run_python(code, {"KILN_LIBCUDA": None})
    assert result.returncode == 0, result.stderr
    assert "libcuda mapped: False" in result.stdout


class _Exports:
    """A stand-in for a loaded library that exports only the functions it is given."""

    _handle = 0

    def __init__(self, **functions):
        self.__dict__.update(functions)


def test_functions_get_their_prototypes_when_first_used():
    import ctypes
    from kiln import _abi, _library

    class Function:   # records what the binding sets on it, as a ctypes function pointer holds it
        restype = argtypes = None

    find = Function()
    library = _library.Library(_Exports(kiln_package_find_kernel=find), 200, lambda: "/fake/libkiln.so.0")
    assert library.kiln_package_find_kernel is find
    assert (find.restype, find.argtypes) == _abi.FUNCTIONS["kiln_package_find_kernel"]
    assert "kiln_package_find_kernel" in vars(library)   # resolved once, then an attribute
    assert ctypes.c_int is find.restype


def test_a_needed_function_the_library_lacks_is_named_when_first_called():
    from kiln import _library
    library = _library.Library(_Exports(), 200, lambda: "/fake/libkiln.so.0")
    with pytest.raises(_library.RuntimeLibraryError) as raised:
        library.kiln_package_get_kernel
    assert str(raised.value) == ("the Kiln runtime library /fake/libkiln.so.0 (version 0.2.0) lacks "
                                 "kiln_package_get_kernel, which this binding needs")
    # A later runtime's function reads as absent, as on a CDLL (Runtime.function names its version).
    assert getattr(library, "kiln_program_compile", None) is None
