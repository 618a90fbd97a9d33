"""The GPU half of ``python -m kiln_example``: every kernel by every route, checked against numpy.

Device memory comes from CuPy, so CuPy (and numpy) are needed here; cuda.core only for its route.
Data is made with numpy and copied (cupy.asarray, cupy.asnumpy): CuPy's own kernels (cupy.full,
arithmetic) are compiled with NVRTC on first use, and this check compiles nothing.
One line per check: ``ok``, ``FAIL`` (the result differs, or the launch raised) or ``skip`` (the
route's library is not installed). Returns the exit status: 0 all ok, 1 a FAIL, 2 a skip.
"""
from . import block_sum, saxpy, scale

ROUTES = ("kiln", "kiln-pointers", "cupy", "cuda.core")


def run_checks():
    try:
        import cupy
        import numpy
    except ImportError as error:
        print(f"skip     every check: device memory comes from CuPy, which cannot be imported ({error})")
        return 2
    failed = skipped = False
    for route in ROUTES:
        missing = _missing_library(route)
        for kernel, check in (("saxpy", _check_saxpy), ("scale<float, 4>", _check_scale),
                              ("block_sum<float, 256>", _check_block_sum)):
            label = f"{kernel:<22} via {route}"
            if missing:
                print(f"skip     {label}: {missing}")
                skipped = True
                continue
            try:
                problem = check(cupy, numpy, route)
            except Exception as error:  # a check that raises is a failed check, and says why
                problem = f"{type(error).__name__}: {error}"
            print(f"{'FAIL' if problem else 'ok':<8} {label}{': ' + problem if problem else ''}")
            failed = failed or bool(problem)
    return 1 if failed else 2 if skipped else 0


def _missing_library(route):
    if route != "cuda.core":
        return None
    try:
        from .ops import _cuda_core

        _cuda_core()
    except ImportError as error:
        return f"cuda.core cannot be imported ({error})"
    return None


def _launch_args(route, *arrays):
    """The arrays as the route takes them: kiln-pointers passes raw device pointers and n."""
    if route == "kiln-pointers":
        return [a.data.ptr for a in arrays], {"n": arrays[0].size, "route": "kiln"}
    return list(arrays), {"route": route}


# Tolerances: the GPU fuses a * x + y into one rounding where numpy rounds twice, and sums 256 floats
# in another order than numpy's float64 sum.
def _compare(cupy, numpy, got, expected, rtol, atol):
    got = cupy.asnumpy(got)
    if numpy.allclose(got, expected, rtol=rtol, atol=atol):
        return None
    worst = int(numpy.argmax(numpy.abs(got - expected)))
    return f"element {worst} is {got[worst]}, expected {expected[worst]}"


def _check_saxpy(cupy, numpy, route):
    rng = numpy.random.default_rng(1)
    x_host = rng.standard_normal(100_003).astype(numpy.float32)
    y_host = rng.standard_normal(100_003).astype(numpy.float32)
    x, y = cupy.asarray(x_host), cupy.asarray(y_host)
    arrays, options = _launch_args(route, x, y)
    saxpy(2.5, *arrays, **options)
    cupy.cuda.Device().synchronize()
    return _compare(cupy, numpy, y, numpy.float32(2.5) * x_host + y_host, 1e-6, 1e-5)


def _check_scale(cupy, numpy, route):
    host = numpy.random.default_rng(2).standard_normal(10_001).astype(numpy.float32)  # not a multiple of 4
    data = cupy.asarray(host)
    arrays, options = _launch_args(route, data)
    scale(*arrays, -3.0, **options)
    cupy.cuda.Device().synchronize()
    return _compare(cupy, numpy, data, host * numpy.float32(-3.0), 1e-6, 1e-5)


def _check_block_sum(cupy, numpy, route):
    n = 256 * 40 + 77  # a partial last block: the elements past n count as 0
    host = numpy.random.default_rng(3).standard_normal(n).astype(numpy.float32)
    values = cupy.asarray(host)
    out = cupy.asarray(numpy.full(-(-n // 256), numpy.nan, dtype=numpy.float32))
    arrays, options = _launch_args(route, values, out)
    block_sum(*arrays, **options)
    cupy.cuda.Device().synchronize()
    padded = numpy.zeros(out.size * 256, dtype=numpy.float64)
    padded[:n] = host
    return _compare(cupy, numpy, out, padded.reshape(-1, 256).sum(axis=1), 1e-4, 1e-3)
