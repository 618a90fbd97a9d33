#!/usr/bin/env python3
"""One measurement, in this fresh process: import, CUDA initialization and the first launch of one
kernel by one path (see README.md). Prints one JSON line; exits 1 if the kernel's result is wrong.

    python3 worker.py --path PATH --kernel NAME --kernel-dir DIR [--elements N]
    python3 worker.py --environment          # versions and device, as JSON (imports everything)

run.py starts it; the CuPy paths use whatever cache CUPY_CACHE_DIR names.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np  # every path needs it, and CuPy and cuda.core import it: outside the clock

import cases
import environment
import launch_paths as paths


def clock_ms() -> float:
    return time.perf_counter_ns() / 1e6


def libraries_loaded(*names: str) -> dict:
    """Which of `names` (e.g. libnvrtc) this process has mapped: evidence of a compiler in the process."""
    maps = Path("/proc/self/maps").read_text()
    return {name: name in maps for name in names}


def measure(path_name: str, kernel: str, kernel_dir: Path, elements: int) -> dict:
    case = cases.CASES[kernel]
    source = (kernel_dir / case.source).read_text()  # read outside the clock for every path alike
    host = case.arrays(elements, np.random.default_rng(12345))
    inputs = {name: array.copy() for name, array in host.items()}
    path = paths.PATHS[path_name](case, source)

    start = clock_ms()
    path.import_modules()
    imported = clock_ms()
    path.init_cuda()
    initialized = clock_ms()
    path.allocate(inputs)  # the caller's own data: timed, but outside the first launch and the total
    allocated = clock_ms()
    path.prepare()
    prepared = clock_ms()
    path.get_kernel()
    got = clock_ms()
    path.launch(case.grid(elements), case.args(elements))
    launched = clock_ms()
    path.synchronize()
    done = clock_ms()

    error = cases.check(case, host, path.read(case.output), elements)
    if error:
        sys.exit(f"worker.py: path {path_name}: {error}")
    first_launch = done - allocated
    return {
        "path": path_name, "kernel": kernel, "elements": elements,
        "import_ms": imported - start, "init_ms": initialized - imported, "alloc_ms": allocated - initialized,
        "prepare_ms": prepared - allocated, "get_ms": got - prepared, "launch_ms": launched - got,
        "sync_ms": done - launched, "first_launch_ms": first_launch,
        "total_ms": (initialized - start) + first_launch,
        "module_import_ms": path.module_import_ms, "image": path.image_description(),
        "loaded": libraries_loaded("libnvrtc", "libnvJitLink", "libkiln"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--environment", action="store_true", help="print versions and the device, then exit")
    parser.add_argument("--path", choices=sorted(paths.PATHS))
    parser.add_argument("--kernel", choices=sorted(cases.CASES))
    parser.add_argument("--kernel-dir", type=Path)
    parser.add_argument("--elements", type=int, default=cases.DEFAULT_ELEMENTS)
    args = parser.parse_args()
    if args.environment:
        result = environment.describe()
    else:
        if not (args.path and args.kernel and args.kernel_dir):
            parser.error("--path, --kernel and --kernel-dir are required")
        result = measure(args.path, args.kernel, args.kernel_dir, args.elements)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
