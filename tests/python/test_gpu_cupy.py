"""Kernels handed to CuPy (Package.cupy_kernel) and the binding's kernels launched on CuPy arrays
and streams. Only array copies are used on the CuPy side: no CuPy operation that compiles a kernel
(run_gpu_tests.py checks that NVRTC never loads)."""

import os
import stat
import tempfile

import pytest

import kiln
from kiln import _interop

try:
    import cupy
    import numpy
except ImportError as error:
    pytest.skip("CuPy is not importable here (%s): the CuPy interop tests need it" % error, allow_module_level=True)

N = 1000


def saxpy_arrays():
    x = numpy.arange(N, dtype=numpy.float32)
    return x, cupy.asarray(x), cupy.asarray(2 * x)


def test_a_raw_kernel_from_the_package(package):
    saxpy = package.cupy_kernel("saxpy")
    assert isinstance(saxpy, cupy.RawKernel)
    x, x_gpu, y_gpu = saxpy_arrays()
    saxpy(((N + 255) // 256,), (256,), (numpy.float32(3), x_gpu, y_gpu, numpy.int32(N)))
    assert (y_gpu.get() == 5 * x).all()


def test_one_raw_kernel_per_kernel_and_device(package):
    assert package.cupy_kernel("scale<float>") is package.cupy_kernel("scale< float >")


def test_the_temporary_file_is_private_and_removed(package, tmp_path, monkeypatch):
    # Where there is no memory file (Windows, macOS): a private temporary file, gone once loaded.
    monkeypatch.delattr(os, "memfd_create", raising=False)
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    made = []
    real_mkstemp = tempfile.mkstemp

    def recording_mkstemp(*args, **kwargs):
        descriptor, path = real_mkstemp(*args, **kwargs)
        made.append((path, stat.S_IMODE(os.stat(path).st_mode)))
        return descriptor, path
    monkeypatch.setattr(tempfile, "mkstemp", recording_mkstemp)
    scale = package.cupy_kernel("scale<float>")
    assert [(os.path.dirname(path), mode) for path, mode in made] == [(str(directory), 0o600)]
    assert os.listdir(directory) == []
    data = cupy.asarray(numpy.array([1, 2, 3], dtype=numpy.float32))
    scale((1,), (32,), (data, numpy.float32(2), numpy.int32(3)))  # loaded before the file went
    assert data.get().tolist() == [2, 4, 6]


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="no os.memfd_create here")
def test_on_linux_cupy_loads_the_image_from_a_memory_file(package, tmp_path, monkeypatch):
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    held = len(_interop._memory_files)
    scale = package.cupy_kernel("scale<double>")
    assert len(_interop._memory_files) == held + 1 and os.listdir(directory) == []
    data = cupy.asarray(numpy.array([1, 2, 3], dtype=numpy.float64))
    scale((1,), (32,), (data, numpy.float64(3), numpy.int32(3)))
    assert data.get().tolist() == [3, 6, 9]


def test_the_binding_launches_on_cupy_arrays_and_streams(package):
    x, x_gpu, y_gpu = saxpy_arrays()
    stream = cupy.cuda.Stream(non_blocking=True)
    package.kernel("saxpy").launch((N + 255) // 256, 256, (numpy.float32(3), x_gpu, y_gpu, N), stream=stream)
    stream.synchronize()
    assert (y_gpu.get() == 5 * x).all()


def test_the_image_for_cupys_device(package):
    device = cupy.cuda.Device()
    image = package.image("saxpy", device=device)
    assert image.compute_capability == int(device.compute_capability)


def test_a_missing_kernel(package):
    with pytest.raises(kiln.KernelNotFoundError, match="nearest: saxpy"):
        package.cupy_kernel("saxpi")
