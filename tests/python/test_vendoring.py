"""Two packages that each vendor the binding and libkiln (mypkg/_kiln/) work side by side in one
process, each with its own library, and neither writes anything: from a read-only tree, with
empty HOME and TMPDIR."""

import os
import shutil
import stat

from support import BINDING_DIR, run_python


def vendor(site, package_name, runtime_library):
    target = site / package_name / "_kiln"
    shutil.copytree(BINDING_DIR, target, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    shutil.copy(runtime_library, target / "libkiln.so.0")
    (site / package_name / "__init__.py").write_text("")
    return target


def snapshot(root):
    return sorted((str(p.relative_to(root)), p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*"))


def make_read_only(root):
    for path in [root, *root.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod(mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


CODE = """
import ctypes, sys
from pkg_a import _kiln as kiln_a
from pkg_b import _kiln as kiln_b
assert kiln_a is not kiln_b and kiln_a.Package is not kiln_b.Package
assert "kiln" not in sys.modules, "a vendored copy imported the top-level kiln"
with kiln_a.open(PACKAGE) as a, kiln_b.open(PACKAGE) as b:
    assert a.kernel_names == b.kernel_names
    assert a.image("saxpy", arch=90).data == b.image("saxpy", arch=90).data
    try:
        b.image("no_such_kernel", arch=90)
    except kiln_b.KernelNotFoundError:
        pass  # each copy raises its own classes
# RTLD_LOCAL: neither copy put its symbols in the process's global namespace, where one could stand in for the other.
print("global kiln_version:", hasattr(ctypes.CDLL(None), "kiln_version"))
print("a:", kiln_a.runtime_library_path())
print("b:", kiln_b.runtime_library_path())
maps = open("/proc/self/maps").read()
print("mapped:", sorted(set(line.split()[-1] for line in maps.splitlines() if "libkiln" in line)))
"""


def test_two_vendored_copies_in_one_process(tmp_path, runtime_library, package_path):
    site = tmp_path / "site"
    library_a = vendor(site, "pkg_a", runtime_library) / "libkiln.so.0"
    library_b = vendor(site, "pkg_b", runtime_library) / "libkiln.so.0"
    home, temp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temp.mkdir()
    make_read_only(site)
    before = snapshot(tmp_path)
    try:
        result = run_python(CODE.replace("PACKAGE", repr(package_path)),
                            {"PYTHONPATH": str(site), "KILN_LIBRARY": None, "LD_LIBRARY_PATH": None,
                             "HOME": str(home), "TMPDIR": str(temp)}, cwd=str(site))
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    assert result.returncode == 0, result.stderr
    assert "global kiln_version: False" in result.stdout
    assert "a: %s" % library_a in result.stdout
    assert "b: %s" % library_b in result.stdout
    assert "mapped: %r" % sorted([str(library_a), str(library_b)]) in result.stdout
    assert snapshot(tmp_path) == before, "something was written under %s" % tmp_path
    assert not os.listdir(home) and not os.listdir(temp)
