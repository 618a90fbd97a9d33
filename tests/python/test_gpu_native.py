"""kiln._native's kernel calls on a GPU: what it reads of each kernel is what ctypes reads
(test_gpu_binding.py launches through both)."""

import os

import pytest

from kiln import _library
from kiln._errors import STATUS

if os.environ.get("KILN_TEST_NATIVE") == "0":
    pytest.skip("this build has no kiln._native (KILN_TEST_NATIVE=0)", allow_module_level=True)


def test_every_kernel_reads_the_same_both_ways(gpu, package):
    runtime = _library.runtime()
    native = runtime.native
    assert native is not None, "the binding did not load $KILN_PYTHON_NATIVE"
    for name in package.kernel_names:
        status, handle = native.get_kernel(package._handle, name.encode())
        assert status == 0 and handle == package.kernel(name)._handle
        status, native_name, sizes = native.kernel_info(handle)
        through_ctypes = runtime.lib.kiln_kernel_name(handle), package.kernel(name)._read_param_sizes(runtime)
        assert (status, native_name, sizes) == (0,) + through_ctypes, name


def test_an_unknown_kernel_fails_with_the_status_ctypes_gets(gpu, package):
    runtime = _library.runtime()
    status, handle = runtime.native.get_kernel(package._handle, b"no_such_kernel")
    assert (status, handle) == (STATUS["KERNEL_NOT_FOUND"], None)
    assert "no_such_kernel" in runtime.lib.kiln_last_error().decode()


def test_every_image_is_the_one_ctypes_reads(gpu, package, monkeypatch):
    fields = ("data", "kind", "target", "compute_capability", "kernel_name", "lowered_name", "description")
    names = package.kernel_names
    through_native = [package.image(name) for name in names]
    monkeypatch.setattr(_library.runtime(), "native", None)
    through_ctypes = [package.image(name) for name in names]
    for name, mine, theirs in zip(names, through_native, through_ctypes):
        assert [getattr(mine, f) for f in fields] == [getattr(theirs, f) for f in fields], name
