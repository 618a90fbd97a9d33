"""Without a driver (ctest points KILN_LIBCUDA at a missing file): listing and image selection by
architecture work, and everything that needs a GPU raises NoDriverError saying why."""

import os
import sys

import pytest

import kiln

pytestmark = pytest.mark.skipif(
    not os.environ.get("KILN_LIBCUDA") or os.path.exists(os.environ["KILN_LIBCUDA"]),
    reason="KILN_LIBCUDA does not name a missing file: the no-driver tests need ctest's environment")


def expect_no_driver(call):
    with pytest.raises(kiln.NoDriverError) as raised:
        call()
    assert raised.value.status_name == "NO_DRIVER"
    # The runtime's message names the library it could not load.
    assert os.environ["KILN_LIBCUDA"] in str(raised.value)
    return raised.value


def test_kernel_needs_a_driver(package):
    expect_no_driver(lambda: package.kernel("saxpy"))


def test_image_for_a_device_needs_a_driver(package):
    expect_no_driver(lambda: package.image("saxpy"))
    expect_no_driver(lambda: package.image("saxpy", 0))


def test_globals_and_preload_need_a_driver(package):
    expect_no_driver(lambda: package.global_address("counter"))
    expect_no_driver(lambda: package.preload())


def test_listing_and_arch_selection_still_work(package):
    expect_no_driver(lambda: package.kernel("saxpy"))
    assert "saxpy" in package
    assert package.image("saxpy", arch=90).kind == "cubin"


def test_an_unknown_kernel_is_reported_before_the_driver(package):
    with pytest.raises(kiln.KernelNotFoundError, match="nearest"):
        package.kernel("saxpi")


class BlockedImport:
    """Makes `import <name>` fail as it does where the module is not installed."""

    def __init__(self, monkeypatch, *names):
        for name in names:
            monkeypatch.setitem(sys.modules, name, None)


def test_cupy_kernel_without_cupy_names_cupy(package, monkeypatch):
    BlockedImport(monkeypatch, "cupy")
    with pytest.raises(kiln.KilnError, match="needs CuPy") as raised:
        package.cupy_kernel("saxpy")
    assert isinstance(raised.value, kiln.MissingModuleError)


def test_cuda_core_kernel_without_cuda_core_names_it(package, monkeypatch):
    BlockedImport(monkeypatch, "cuda", "cuda.core", "cuda.core.experimental")
    with pytest.raises(kiln.KilnError, match="needs cuda.core"):
        package.cuda_core_kernel("saxpy", device=0)


# CuPy and cuda.core stand-ins that fail as the real ones do on a machine without a driver: CuPy's
# CUDARuntimeError is a RuntimeError, cuda.core's CUDAError an Exception.
class CUDARuntimeError(RuntimeError):
    pass


def fake_cupy(monkeypatch, get_device):
    import types
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDevice=get_device))
    monkeypatch.setitem(sys.modules, "cupy", cupy)


def fake_cuda_core(monkeypatch, device):
    import types
    cuda, core = types.ModuleType("cuda"), types.ModuleType("cuda.core")
    core.ObjectCode, core.Device, cuda.core = object, device, core
    monkeypatch.setitem(sys.modules, "cuda", cuda)
    monkeypatch.setitem(sys.modules, "cuda.core", core)


def cupy_has_no_driver():
    raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version")


class CudaCoreError(Exception):
    pass


def cuda_core_has_no_driver():
    raise CudaCoreError("CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected")


def test_cupy_kernel_without_a_driver_raises_no_driver_error(package, monkeypatch):
    fake_cupy(monkeypatch, cupy_has_no_driver)
    error = expect_no_driver(lambda: package.cupy_kernel("saxpy"))
    assert isinstance(error.__context__, CUDARuntimeError)   # CuPy's own error stays reachable


def test_cupy_kernel_on_a_device_cupy_names_without_a_driver_raises_no_driver_error(package, monkeypatch):
    fake_cupy(monkeypatch, lambda: 0)   # CuPy answers, Kiln's runtime has no driver (KILN_LIBCUDA)
    expect_no_driver(lambda: package.cupy_kernel("saxpy"))


def test_cuda_core_kernel_without_a_driver_raises_no_driver_error(package, monkeypatch):
    fake_cuda_core(monkeypatch, cuda_core_has_no_driver)
    error = expect_no_driver(lambda: package.cuda_core_kernel("saxpy"))
    assert isinstance(error.__context__, CudaCoreError)
    expect_no_driver(lambda: package.cuda_core_kernel("saxpy", device=0))


def test_an_unknown_kernel_is_reported_before_the_loader_is_asked(package, monkeypatch):
    fake_cupy(monkeypatch, cupy_has_no_driver)
    fake_cuda_core(monkeypatch, cuda_core_has_no_driver)
    with pytest.raises(kiln.KernelNotFoundError, match="nearest"):
        package.cupy_kernel("saxpi")
    with pytest.raises(kiln.KernelNotFoundError, match="nearest"):
        package.cuda_core_kernel("saxpi")


def test_a_loader_failure_where_kilns_runtime_has_a_driver_is_a_driver_error(package, monkeypatch):
    # Kiln's probe of the driver succeeds (a stand-in image()), CuPy's and cuda.core's still fail: the
    # error is Kiln's DriverError naming the kernel, the step and the loader's message.
    monkeypatch.setattr(package, "image", lambda name, device=None: None)
    fake_cupy(monkeypatch, cupy_has_no_driver)
    with pytest.raises(kiln.DriverError) as raised:
        package.cupy_kernel("saxpy")
    assert raised.value.status_name == "DRIVER_ERROR"
    assert str(raised.value) == ("Package.cupy_kernel('saxpy'): CuPy's cupy.cuda.runtime.getDevice() failed: "
                                 "CUDARuntimeError: cudaErrorInsufficientDriver: CUDA driver version is "
                                 "insufficient for CUDA runtime version")
    assert isinstance(raised.value.__cause__, CUDARuntimeError)
    fake_cuda_core(monkeypatch, cuda_core_has_no_driver)
    with pytest.raises(kiln.DriverError, match=r"^Package.cuda_core_kernel\('saxpy'\): cuda.core's Device\(\) failed: "
                                               r"CudaCoreError: CUDA_ERROR_NO_DEVICE"):
        package.cuda_core_kernel("saxpy")
