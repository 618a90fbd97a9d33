"""A kernel missing from a package older than the Python file asking for it, which is not beside it
(an editable install: the code from the source tree, the package installed when the install ran),
is a KernelNotFoundError that says the package is stale and how to rebuild it (kiln._stale)."""

import importlib.util
import os
import shutil
import time

import pytest

import kiln

ASKING = '''
def kernel(package, name):
    return package.kernel(name)

def image(package, name):
    return package.image(name, arch=90)

def coverage(package, name):
    return package.coverage(name, 90)

def global_address(package, name):
    return package.global_address(name)
'''


def asking_module(path):
    path.write_text(ASKING)
    spec = importlib.util.spec_from_file_location("asking_" + path.parent.name, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_older(path, seconds=60):
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.fixture
def editable(package_path, tmp_path):
    """A package installed in site/ a minute before src/ops.py, which asks for kernels."""
    (tmp_path / "site").mkdir()
    (tmp_path / "src").mkdir()
    installed = tmp_path / "site" / "kernels.kiln"
    shutil.copyfile(package_path, installed)
    make_older(installed)
    return installed, asking_module(tmp_path / "src" / "ops.py"), tmp_path / "src" / "ops.py"


@pytest.mark.parametrize("call", ["kernel", "image", "coverage"])
def test_a_kernel_missing_from_a_stale_package_says_so(editable, call):
    installed, ops, source = editable
    with kiln.open(installed) as package:
        with pytest.raises(kiln.KernelNotFoundError) as raised:
            getattr(ops, call)(package, "scale<double, 8>")
    message = str(raised.value)
    assert "nearest" in message   # the runtime's message comes first, whole
    assert ("; %s was built before %s last changed and is not beside it, as in an editable install (pip install -e)"
            % (installed, source)) in message
    assert "the package is stale and lacks 'scale<double, 8>'; install again (pip install -e .)" in message


def test_a_missing_variable_gets_the_hint_too(editable):
    installed, ops, _ = editable
    with kiln.open(installed) as package:
        with pytest.raises(kiln.KernelNotFoundError, match="is stale and lacks 'no_such_table'"):
            ops.global_address(package, "no_such_table")


def no_hint(call):
    with pytest.raises(kiln.KernelNotFoundError) as raised:
        call()
    assert "stale" not in str(raised.value)


def test_no_hint_where_the_package_is_beside_the_code(package_bytes, tmp_path):
    installed = tmp_path / "kernels.kiln"
    installed.write_bytes(package_bytes)
    make_older(installed)                 # an ordinary install: both in one directory
    ops = asking_module(tmp_path / "ops.py")
    with kiln.open(installed) as package:
        no_hint(lambda: ops.kernel(package, "scale<double, 8>"))


def test_no_hint_where_the_package_is_newer_than_the_code(editable):
    installed, ops, source = editable
    make_older(source, seconds=120)
    with kiln.open(installed) as package:
        no_hint(lambda: ops.kernel(package, "scale<double, 8>"))


def test_no_hint_for_a_package_from_memory(editable, package_bytes):
    _, ops, _ = editable
    no_hint(lambda: ops.kernel(kiln.Package.from_bytes(package_bytes), "scale<double, 8>"))
