"""Kernels handed to cuda.core (Package.cuda_core_kernel, Kernel.handle with Kernel.from_handle),
whichever of its APIs is installed (cuda.core, or cuda.core.experimental before 1.0)."""

import array

import pytest

import kiln
from kiln import _interop
from gpu_driver import DeviceArray

try:
    core = _interop._import_cuda_core()
    import numpy
except ImportError as error:  # MissingModuleError is an ImportError
    pytest.skip("cuda.core is not importable here (%s): the cuda.core interop tests need it" % error,
                allow_module_level=True)

N = 1000


@pytest.fixture
def device(gpu):
    device = core.Device(0)
    device.set_current()
    return device


def run_saxpy(gpu, device, kernel):
    """Launches `kernel` (a cuda.core Kernel for saxpy) and checks y = 3x + 2x."""
    x = DeviceArray(gpu, array.array("f", range(N)))
    y = DeviceArray(gpu, array.array("f", (2.0 * i for i in range(N))))
    stream = device.create_stream()
    config = core.LaunchConfig(grid=(N + 255) // 256, block=256)
    # cuda.core passes a Python int as a pointer.
    core.launch(stream, config, kernel, numpy.float32(3), x.pointer, y.pointer, numpy.int32(N))
    stream.sync()
    assert list(y.read()) == [5.0 * i for i in range(N)]


def test_a_cuda_core_kernel_from_the_package(gpu, device, package):
    kernel = package.cuda_core_kernel("saxpy")
    assert isinstance(kernel, core.Kernel)
    assert package.cuda_core_kernel("saxpy", device=0) is kernel
    assert package.cuda_core_kernel("saxpy", device=device) is kernel
    run_saxpy(gpu, device, kernel)


def test_a_kernel_handle_in_cuda_core(gpu, device, package):
    if not hasattr(core.Kernel, "from_handle"):
        pytest.skip("this cuda.core (%s) has no Kernel.from_handle" % core.__name__)
    run_saxpy(gpu, device, core.Kernel.from_handle(package.kernel("saxpy").handle))


def test_the_binding_launches_on_a_cuda_core_stream(gpu, device, package):
    x = DeviceArray(gpu, array.array("f", range(N)))
    y = DeviceArray(gpu, array.array("f", [0.0] * N))
    stream = device.create_stream()
    package.kernel("saxpy").launch(4, 256, (1.0, x, y, N), stream=stream)
    stream.sync()
    assert list(y.read()) == [float(i) for i in range(N)]


def test_a_missing_kernel(device, package):
    with pytest.raises(kiln.KernelNotFoundError):
        package.cuda_core_kernel("saxpi")
