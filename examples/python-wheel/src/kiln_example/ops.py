"""The wheel's kernels, each launchable by three routes from the same image in ``kernels.kiln``:

    "kiln"       Kiln's binding loads the image and launches it        package().kernel(name)
    "cupy"       a cupy.RawKernel made from the image                  package().cupy_kernel(name)
    "cuda.core"  a cuda.core Kernel made from the image's bytes        package().cuda_core_kernel(name)

Every kernel name is written out as a constant string in each call on purpose: Kiln's generator scans
this file when the wheel is built (kiln_add_cache(... PYTHON_SOURCES)) and builds each template
instantiation asked for here, as it does for C++ host code. ``scale<float, 4>`` and
``block_sum<float, 256>`` are in the package only because this file asks for them.

Arrays are CuPy arrays (anything with ``__cuda_array_interface__``) of float32, or raw device
pointers (ints) with ``n`` given. Kernels run on the current device; ``stream`` is a CuPy stream for
"kiln" and "cupy" (None: CuPy's current stream for "cupy", the default stream for "kiln") and a
cuda.core Stream for "cuda.core" (None: the device's default stream). Nothing here waits for the GPU.
"""
from . import package

ROUTES = ("kiln", "cupy", "cuda.core")
BLOCK = 256  # threads per block for every kernel; block_sum<float, 256> needs exactly this


def saxpy(a, x, y, n=None, *, route="kiln", stream=None):
    """y = a * x + y for n float32 elements (n defaults to the arrays' size)."""
    n = _count(n, x=x, y=y)
    grid = _blocks(n, BLOCK)
    if route == "kiln":
        package().kernel("saxpy").launch(grid, BLOCK, (a, x, y, n), stream=stream)
    elif route == "cupy":
        np = _numpy()
        args = (np.float32(a), x, y, np.int32(n))
        _cupy_launch(package().cupy_kernel("saxpy"), grid, args, stream)
    elif _check_route(route):
        np = _numpy()
        args = (np.float32(a), _pointer(x), _pointer(y), np.int32(n))
        _cuda_core_launch(package().cuda_core_kernel("saxpy"), grid, args, stream)


def scale(data, factor, n=None, *, route="kiln", stream=None):
    """data *= factor for n float32 elements, with scale<float, 4> (four elements per thread)."""
    n = _count(n, data=data)
    grid = _blocks(n, BLOCK * 4)
    if route == "kiln":
        package().kernel("scale<float, 4>").launch(grid, BLOCK, (data, factor, n), stream=stream)
    elif route == "cupy":
        np = _numpy()
        args = (data, np.float32(factor), np.int32(n))
        _cupy_launch(package().cupy_kernel("scale<float, 4>"), grid, args, stream)
    elif _check_route(route):
        np = _numpy()
        args = (_pointer(data), np.float32(factor), np.int32(n))
        _cuda_core_launch(package().cuda_core_kernel("scale<float, 4>"), grid, args, stream)


def block_sum(values, out=None, n=None, *, route="kiln", stream=None):
    """Per-block sums of n float32 values with block_sum<float, 256> (CUB's BlockReduce).

    out[b] = values[256*b] + ... + values[256*b + 255] (values at or beyond n count as 0); out needs
    ceil(n / 256) elements and is allocated with CuPy when not given. Returns out.
    """
    n = _count(n, values=values)
    grid = _blocks(n, BLOCK)
    if out is None:
        if not hasattr(values, "__cuda_array_interface__"):
            raise TypeError("block_sum: give `out` when `values` is a raw device pointer")
        import cupy

        out = cupy.empty(grid, dtype=cupy.float32)
    _check_float32("out", out, grid)
    if route == "kiln":
        package().kernel("block_sum<float, 256>").launch(grid, BLOCK, (values, out, n), stream=stream)
    elif route == "cupy":
        np = _numpy()
        args = (values, out, np.int32(n))
        _cupy_launch(package().cupy_kernel("block_sum<float, 256>"), grid, args, stream)
    elif _check_route(route):
        np = _numpy()
        args = (_pointer(values), _pointer(out), np.int32(n))
        _cuda_core_launch(package().cuda_core_kernel("block_sum<float, 256>"), grid, args, stream)
    return out


# ---- helpers -------------------------------------------------------------------------------------

def _check_route(route):
    if route != "cuda.core":
        raise ValueError(f"unknown route {route!r}: expected one of {', '.join(ROUTES)}")
    return True


def _blocks(n, per_block):
    return max(1, -(-n // per_block))


def _count(n, **arrays):
    """n as given, else the common size of the arrays; each array must be contiguous float32."""
    if n is None:
        sizes = {name: _size(name, value) for name, value in arrays.items()}
        if len(set(sizes.values())) != 1:
            raise ValueError("arrays differ in size: " + ", ".join(f"{k}={v}" for k, v in sizes.items()))
        n = next(iter(sizes.values()))
    for name, value in arrays.items():
        _check_float32(name, value, n)
    if not isinstance(n, int) or n < 0 or n >= 2**31:
        raise ValueError(f"n must be an int in [0, 2**31), not {n!r}")
    return n


def _size(name, value):
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        raise TypeError(f"{name}: a raw device pointer needs n (the element count)")
    count = 1
    for extent in interface["shape"]:
        count *= extent
    return count


def _check_float32(name, value, n):
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is None:
        if not isinstance(value, int):
            raise TypeError(f"{name}: expected a CUDA array or a device pointer (int), not {type(value).__name__}")
        return
    if interface["typestr"] != "<f4":
        raise TypeError(f"{name}: expected float32 elements, not {interface['typestr']}")
    if not _contiguous(interface):
        raise TypeError(f"{name}: expected a C-contiguous array")
    if _size(name, value) < n:
        raise ValueError(f"{name}: {_size(name, value)} elements, {n} needed")


def _contiguous(interface):
    strides = interface.get("strides")
    if strides is None:  # the interface's way of saying C-contiguous
        return True
    expected, step = [], 4
    for extent in reversed(interface["shape"]):
        expected.insert(0, step)
        step *= extent
    return all(s == e for s, e, extent in zip(strides, expected, interface["shape"]) if extent > 1)


def _pointer(value):
    if isinstance(value, int):
        return value
    return value.__cuda_array_interface__["data"][0]


def _numpy():
    import numpy

    return numpy


def _cupy_launch(kernel, grid, args, stream):
    if stream is None:
        kernel((grid,), (BLOCK,), args)
    else:
        with stream:
            kernel((grid,), (BLOCK,), args)


def _cuda_core():
    """cuda.core's namespace with launch(): cuda.core (1.x and recent 0.x) or cuda.core.experimental (older)."""
    try:
        from cuda import core

        core.launch  # noqa: B018  (only the newer layout has it at the top)
        return core
    except (ImportError, AttributeError):
        from cuda.core import experimental

        return experimental


def _cuda_core_launch(kernel, grid, args, stream):
    core = _cuda_core()
    if stream is None:
        device = core.Device()
        device.set_current()
        stream = device.default_stream
    core.launch(stream, core.LaunchConfig(grid=grid, block=BLOCK), kernel, *args)
