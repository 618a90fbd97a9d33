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
