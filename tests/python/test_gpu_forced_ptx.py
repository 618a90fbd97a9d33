"""With KILN_FORCE_TARGET=ptx (read once per process, so in a process of its own) every path gets
the package's PTX, which the driver compiles: through the binding, CuPy and cuda.core (from_ptx),
still with no NVRTC or nvJitLink, and nothing written to HOME. The driver caches its own JIT
output in ~/.nv/ComputeCache unless told not to (CUDA_CACHE_DISABLE=1, as here), which is the
driver's doing and not Kiln's."""

import os

from support import run_python

HERE = os.path.dirname(os.path.abspath(__file__))

SCRIPT = """
import array, sys
sys.path.insert(0, %(here)r)
import kiln
from gpu_driver import Driver, DeviceArray
gpu = Driver()
N = 1000

def check(name, y):
    print(name + ":", list(y.read()) == [5.0 * i for i in range(N)])

def arrays():
    return (DeviceArray(gpu, array.array("f", range(N))),
            DeviceArray(gpu, array.array("f", (2.0 * i for i in range(N)))))

with kiln.open(%(package)r) as package:
    image = package.image("saxpy", 0)
    print("image:", image.kind, image.target)
    x, y = arrays()
    package.kernel("saxpy").launch(4, 256, (3.0, x, y, N))
    gpu.synchronize()
    check("binding", y)
    try:
        import cupy, numpy
    except ImportError as error:
        print("cupy: not importable:", error)
    else:
        x = cupy.asarray(numpy.arange(N, dtype=numpy.float32))  # copies only: nothing compiled
        y = cupy.asarray(2 * numpy.arange(N, dtype=numpy.float32))
        package.cupy_kernel("saxpy")((4,), (256,), (numpy.float32(3), x, y, numpy.int32(N)))
        print("cupy:", (y.get() == 5 * numpy.arange(N)).all())
    try:
        core = kiln._interop._import_cuda_core()
        import numpy
    except ImportError as error:
        print("cuda.core: not importable:", error)
    else:
        device = core.Device(0)
        device.set_current()
        stream = device.create_stream()
        x, y = arrays()
        kernel = package.cuda_core_kernel("saxpy")
        core.launch(stream, core.LaunchConfig(grid=4, block=256), kernel, numpy.float32(3), x.pointer, y.pointer,
                    numpy.int32(N))
        stream.sync()
        check("cuda.core", y)
maps = open("/proc/self/maps").read()
print("compilers:", sorted({l.split()[-1] for l in maps.splitlines() if "/libnvrtc" in l or "/libnvJitLink" in l}))
"""


def test_forced_ptx(package_path, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = run_python(SCRIPT % {"here": HERE, "package": package_path},
                        {"KILN_FORCE_TARGET": "ptx", "HOME": str(home), "CUDA_CACHE_DISABLE": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "image: ptx compute_75" in out
    assert "binding: True" in out
    assert "cupy: True" in out or "cupy: not importable" in out
    assert "cuda.core: True" in out or "cuda.core: not importable" in out
    assert "compilers: []" in out
    assert [f for _, _, files in os.walk(home) for f in files] == []
