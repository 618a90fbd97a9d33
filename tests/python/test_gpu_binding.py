"""Launches through the binding itself (Package.kernel), with device memory from the driver
(gpu_driver.py) passed through __cuda_array_interface__: no CuPy or cuda.core needed. Every test
runs twice: its opens, lookups and images through kiln._native where this build made it, and
through ctypes alone. kiln._native leaves arrays with __cuda_array_interface__ to the Python path,
so these launches are packed in Python both times; test_gpu_native.py launches through the C path."""

import array
import ctypes
import os
import struct

import pytest

import kiln
from kiln import _library
from gpu_driver import DeviceArray

N = 1000


@pytest.fixture(autouse=True, params=["native", "ctypes"])
def calls(request, monkeypatch):
    """Which way the binding calls libkiln: kiln._native ($KILN_PYTHON_NATIVE), or ctypes alone."""
    runtime = _library.runtime()
    if request.param == "native":
        if os.environ.get("KILN_TEST_NATIVE") == "0":
            pytest.skip("this build has no kiln._native (KILN_TEST_NATIVE=0)")
        assert runtime.native is not None, "the binding did not load $KILN_PYTHON_NATIVE"
    else:
        monkeypatch.setattr(runtime, "native", None)
    return request.param


def saxpy_arrays(gpu):
    x = DeviceArray(gpu, array.array("f", range(N)))
    y = DeviceArray(gpu, array.array("f", (2.0 * i for i in range(N))))
    return x, y


def test_saxpy(gpu, package):
    saxpy = package.kernel("saxpy")
    assert (saxpy.name, saxpy.lowered_name, saxpy.param_sizes) == ("saxpy", "_Z5saxpyfPKfPfi", [4, 8, 8, 4])
    x, y = saxpy_arrays(gpu)
    saxpy.launch((N + 255) // 256, 256, (3.0, x, y, N))
    gpu.synchronize()
    assert list(y.read()) == [5.0 * i for i in range(N)]
    saxpy((N + 255) // 256, (256, 1, 1), (1.0, x, y, N))  # calling the kernel launches it too
    gpu.synchronize()
    assert list(y.read()) == [6.0 * i for i in range(N)]


def test_a_bad_argument_is_reported_before_a_bad_stream(gpu, package):
    # The same order both ways: the arguments are packed before the stream is looked for.
    x, y = saxpy_arrays(gpu)
    with pytest.raises(kiln.ArgumentMismatchError, match="argument 0"):
        package.kernel("saxpy").launch(4, 256, ("text", x, y, N), stream=object())
    with pytest.raises(kiln.InvalidArgumentError, match="cannot find a CUstream"):
        package.kernel("saxpy").launch(4, 256, (2.0, x, y, N), stream=object())


def test_kernel_returns_one_object_per_kernel(gpu, package):
    assert package.kernel("scale<float>") is package.kernel("scale< float >")


def test_a_launch_on_a_stream(gpu, package):
    x, y = saxpy_arrays(gpu)
    stream = gpu.stream()

    class Stream:  # what cuda.core and CuPy streams offer
        def __cuda_stream__(self):
            return (0, stream)
    package.kernel("saxpy").launch(4, 256, (2.0, x, y, N), stream=stream)
    package.kernel("saxpy").launch(4, 256, (2.0, x, y, N), stream=Stream())
    gpu.check(gpu.lib.cuStreamSynchronize(stream), "cuStreamSynchronize")
    assert list(y.read()) == [6.0 * i for i in range(N)]


def test_each_scalar_size_arrives_as_sent(gpu, package):
    out = DeviceArray(gpu, array.array("q", [0] * 6))
    package.kernel("echo_args").launch(1, 1, (200, -2, -3, -(1 << 40), 1.5, -2.25, out))
    gpu.synchronize()
    expected = [200, -2, -3, -(1 << 40), struct.unpack("<I", struct.pack("<f", 1.5))[0],
                struct.unpack("<q", struct.pack("<d", -2.25))[0]]
    assert list(out.read()) == expected
    # The same through ctypes values, which carry their own sizes.
    package.kernel("echo_args").launch(1, 1, (ctypes.c_uint8(200), ctypes.c_int16(-2), ctypes.c_int32(-3),
                                              ctypes.c_int64(-(1 << 40)), ctypes.c_float(1.5),
                                              ctypes.c_double(-2.25), out))
    gpu.synchronize()
    assert list(out.read()) == expected


def test_a_struct_argument(gpu, package):
    class Pair(ctypes.Structure):
        _fields_ = [("first", ctypes.c_int), ("second", ctypes.c_float)]
    out = DeviceArray(gpu, array.array("q", [0, 0]))
    package.kernel("take_pair").launch(1, 1, (Pair(-7, 0.5), out))
    gpu.synchronize()
    assert list(out.read()) == [-7, struct.unpack("<I", struct.pack("<f", 0.5))[0]]


def test_a_template_kernel(gpu, package):
    data = DeviceArray(gpu, array.array("d", [1.0, 2.0, 3.0]))
    package.kernel("scale<double>").launch(1, 32, (data, 0.5, 3))
    gpu.synchronize()
    assert list(data.read()) == [0.5, 1.0, 1.5]


def test_a_device_variable(gpu, package):
    address, size = package.global_address("counter")
    assert address != 0 and size == 4
    zero = ctypes.c_int(0)
    gpu.check(gpu.lib.cuMemcpyHtoD_v2(address, ctypes.byref(zero), 4), "cuMemcpyHtoD")
    package.kernel("count_up").launch(4, 256, (1000,))
    gpu.synchronize()
    total = ctypes.c_int()
    gpu.check(gpu.lib.cuMemcpyDtoH_v2(ctypes.byref(total), address, 4), "cuMemcpyDtoH")
    assert total.value == 1000


def test_preload_and_the_handle(gpu, package):
    package.preload()
    handle = package.kernel("saxpy").handle
    assert isinstance(handle, int) and handle != 0
    assert package.kernel("saxpy").handle == handle


def test_the_image_for_this_device(gpu, package):
    image = package.image("saxpy")
    assert image.compute_capability == gpu.compute_capability()
    assert image.lowered_name == "_Z5saxpyfPKfPfi"
    assert package.image("saxpy", 0).target == image.target
    if gpu.compute_capability() == 90:  # the GPU machines these tests meet: H100, H200
        assert (image.kind, image.target) == ("cubin", "sm_90")


def test_a_bad_device_ordinal(gpu, package):
    with pytest.raises(kiln.InvalidArgumentError):
        package.image("saxpy", 4096)


def test_the_driver_refusing_a_launch_is_a_driver_error(gpu, package):
    x, y = saxpy_arrays(gpu)
    with pytest.raises(kiln.DriverError) as raised:
        package.kernel("saxpy").launch(1, 4096, (1.0, x, y, N))  # more threads than a block holds
    assert raised.value.status_name == "DRIVER_ERROR" and "saxpy" in str(raised.value)


def test_arguments_are_checked_before_the_launch(gpu, package):
    x, y = saxpy_arrays(gpu)
    with pytest.raises(kiln.ArgumentMismatchError, match="kernel 'saxpy' takes 4 arguments, 3 given"):
        package.kernel("saxpy").launch(1, 256, (1.0, x, y))
