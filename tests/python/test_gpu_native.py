"""kiln._native's kernel calls on a GPU: what it reads of each kernel is what ctypes reads
(test_gpu_binding.py launches through both)."""

import array
import os

import pytest

from kiln import _arguments, _library
from kiln._errors import STATUS
from gpu_driver import DeviceArray

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


def test_a_launch_it_takes_is_packed_and_launched_in_c(gpu, package, monkeypatch):
    # The Python path refuses to pack here, so these launches pass only through kiln._native: plain
    # Python numbers (device pointers as ints), a CuPy array, and numpy's scalars.
    def python_path(*args):
        raise AssertionError("the Python path packed a launch kiln._native takes")
    monkeypatch.setattr(_arguments, "encode_all", python_path)
    n = 1000
    x = DeviceArray(gpu, array.array("f", range(n)))
    y = DeviceArray(gpu, array.array("f", (2.0 * i for i in range(n))))
    saxpy = package.kernel("saxpy")
    saxpy.launch((n + 255) // 256, 256, (3.0, x.pointer, y.pointer, n))
    gpu.synchronize()
    assert list(y.read()) == [5.0 * i for i in range(n)]
    # A CuPy array as kiln._native finds one (its type, cupy's ndarray, and .data.ptr), without CuPy,
    # which would compile its own kernels with NVRTC (run_gpu_tests.py refuses that).
    ndarray = type("ndarray", (), {"__module__": "cupy._core.core"})
    on_device = ndarray()
    on_device.data = type("MemoryPointer", (), {"ptr": y.pointer})()
    saxpy((n + 255) // 256, 256, (2.0, x.pointer, on_device, n))
    gpu.synchronize()
    assert list(y.read()) == [7.0 * i for i in range(n)]
    numpy = pytest.importorskip("numpy")
    saxpy((n + 255) // 256, (256, 1, 1), [numpy.float32(1.0), numpy.uint64(x.pointer), y.pointer, numpy.int32(n)])
    gpu.synchronize()
    assert list(y.read()) == [8.0 * i for i in range(n)]
