"""Launch attributes, kernel attributes, occupancy and name_of through the binding on a real GPU
(python_test.kiln; device memory from gpu_driver.py)."""

import array

import pytest

import kiln
from gpu_driver import DeviceArray

N = 1024


def test_launch_with_priority_and_cooperative(gpu, package):
    saxpy = package.kernel("saxpy")
    x = DeviceArray(gpu, array.array("f", range(N)))
    y = DeviceArray(gpu, array.array("f", [0.0] * N))
    saxpy.launch(N // 256, 256, (2.0, x, y, N), priority=0)
    saxpy.launch(N // 256, 256, (1.0, x, y, N), cooperative=True)  # 4 blocks: resident at once anywhere
    gpu.synchronize()
    assert list(y.read()) == [3.0 * i for i in range(N)]


def test_launch_in_clusters(gpu, package):
    arch = gpu.compute_capability()
    if arch < 90:
        pytest.skip("thread block clusters need compute capability 9.0; the device is %d.%d" % divmod(arch, 10))
    x = DeviceArray(gpu, array.array("f", range(N)))
    y = DeviceArray(gpu, array.array("f", [1.0] * N))
    package.kernel("saxpy").launch(N // 128, 128, (2.0, x, y, N), cluster=(2, 1, 1))
    gpu.synchronize()
    assert list(y.read()) == [2.0 * i + 1.0 for i in range(N)]


def test_attributes_and_occupancy(gpu, package):
    saxpy = package.kernel("saxpy")
    assert saxpy.attribute("registers") > 0
    assert 0 < saxpy.attribute("max_threads_per_block") <= 1024
    assert saxpy.max_active_blocks(256) >= 1
    min_grid, block = saxpy.suggest_block_size()
    assert min_grid >= 1 and 0 < block <= 1024
    assert saxpy.suggest_block_size(limit=64)[1] <= 64


def test_name_of_finds_the_instantiation(gpu, package):
    numpy = pytest.importorskip("numpy")
    assert package.kernel(kiln.name_of("scale", numpy.float32)) is package.kernel("scale<float>")
