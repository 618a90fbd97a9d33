"""Is there a GPU to measure on? Asked of the driver through ctypes, so that a machine without one is
told so (exit 125) before anything else, even without CuPy or the example wheel installed.
"""
from __future__ import annotations

import ctypes
import subprocess

CUDA_SUCCESS = 0
# cuInit's answers that mean "no GPU here" rather than "something is broken".
NO_GPU_STATUSES = {100: "CUDA_ERROR_NO_DEVICE", 34: "CUDA_ERROR_STUB_LIBRARY"}


class DriverBroken(Exception):
    pass


def no_gpu(library: str = "libcuda.so.1") -> str | None:
    """Why no GPU can be used, or None if the driver has at least one device.

    Raises DriverBroken when there is a driver with devices that fails otherwise (that must fail the
    benchmark, not skip it).
    """
    try:
        cuda = ctypes.CDLL(library)
    except OSError as error:
        return f"no GPU: the CUDA driver ({library}) cannot be loaded: {error}"
    status = cuda.cuInit(0)
    if status in NO_GPU_STATUSES:
        return f"no GPU: cuInit returned {status} ({NO_GPU_STATUSES[status]})"
    if status != CUDA_SUCCESS:
        raise DriverBroken(f"cuInit failed with CUresult {status}")
    count = ctypes.c_int(0)
    status = cuda.cuDeviceGetCount(ctypes.byref(count))
    if status != CUDA_SUCCESS:
        raise DriverBroken(f"cuDeviceGetCount failed with CUresult {status}")
    return None if count.value > 0 else "no GPU: the CUDA driver lists no device"


def nvidia_driver() -> dict:
    """The driver's release (580.65.06, say) for the report; {} where nvidia-smi is not there."""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader", "-i", "0"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return {"nvidia_driver": done.stdout.strip()} if done.returncode == 0 and done.stdout.strip() else {}
