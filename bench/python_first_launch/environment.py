"""What the report records about the machine: versions of everything the paths import, and the GPU.

Run once per benchmark in a process of its own (`worker.py --environment`), before the timed ones.
A missing package makes it fail (the benchmark could not run); a detail that cannot be read is
recorded as the error instead.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import platform
import re
import sys
from pathlib import Path

import numpy as np

from launch_paths import import_cuda_core


def _try(read):
    try:
        return read()
    except Exception as error:  # a detail for the report, not a reason to stop
        return f"unknown ({type(error).__name__}: {error})"


def _cccl_version(cupy) -> str:
    header = Path(cupy.__file__).parent / "_core/include/cupy/_cccl/libcudacxx/cuda/std/__cccl/version.h"
    number = int(re.search(r"#define CCCL_VERSION (\d+)", header.read_text()).group(1))
    return f"{number // 1000000}.{number // 1000 % 1000}.{number % 1000} (bundled with CuPy)"


def _cuda_version(number: int) -> str:
    return f"{number // 1000}.{number % 1000 // 10}"


def describe() -> dict:
    info = {"python": f"{platform.python_version()} ({sys.executable})", "platform": platform.platform(),
            "numpy": np.__version__}
    import cupy
    runtime = cupy.cuda.runtime
    properties = runtime.getDeviceProperties(0)
    info["gpu"] = properties["name"].decode() if isinstance(properties["name"], bytes) else properties["name"]
    info["compute_capability"] = f"{properties['major']}.{properties['minor']}"
    info["cuda_driver_api"] = _try(lambda: _cuda_version(runtime.driverGetVersion()))
    info["cupy"] = cupy.__version__
    info["cupy_cuda_runtime"] = _try(lambda: _cuda_version(runtime.runtimeGetVersion()))
    info["nvrtc"] = _try(lambda: ".".join(map(str, cupy.cuda.nvrtc.getVersion())))
    info["cccl"] = _try(lambda: _cccl_version(cupy))

    _, where = import_cuda_core(importlib.import_module)
    info["cuda_core"] = f"{_try(lambda: importlib.metadata.version('cuda-core'))} (imported as {where})"
    info["cuda_bindings"] = _try(lambda: importlib.metadata.version("cuda-bindings"))

    kiln_example = importlib.import_module("kiln_example")
    info["kiln_example"] = (f"{_try(lambda: importlib.metadata.version('kiln-example-wheel'))} "
                            f"({Path(kiln_example.__file__).parent})")
    try:
        binding = importlib.import_module("kiln_example._kiln")  # the vendored copy (docs/python.md)
    except ImportError as error:
        info["kiln_binding"] = f"unknown ({error})"
    else:
        info["kiln_binding"] = _try(lambda: binding.__version__)
        info["kiln_runtime"] = _try(lambda: binding.runtime_version())
    return info
