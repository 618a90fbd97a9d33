#!/usr/bin/env python3
"""One measurement, in this fresh process: import, CUDA initialization and the first launch of one
kernel by one path (see README.md). Prints one JSON line; exits 1 if the kernel's result is wrong.

    python3 worker.py --path PATH --kernel NAME --kernel-dir DIR [--elements N]
        [--image FILE --lowered-name NAME]   # the floor paths: the file --write-image wrote
    python3 worker.py --environment          # versions and device, as JSON (imports everything)
    python3 worker.py --write-image DIR --kernel NAME   # the package's image for device 0, to a file

run.py starts it; the CuPy paths use whatever cache CUPY_CACHE_DIR names.
"""
from __future__ import annotations

import argparse
import gc
import json
import re
import sys
import time
from pathlib import Path

import numpy as np  # every path needs it, and CuPy and cuda.core import it: outside the clock

import cases
import environment
import launch_paths as paths


def clock_ms() -> float:
    return time.perf_counter_ns() / 1e6


class CollectorClock:
    """Time Python's garbage collector spends while it is on: a collection runs when enough objects
    have been allocated since the last, so which step it lands in is partly chance (report.py shows
    it beside the first launch)."""

    def __init__(self):
        self.on = False
        self.ms = 0.0
        self.collections: list[int] = []   # the generation of each collection
        self._start = 0.0

    def __call__(self, phase: str, info: dict):
        if not self.on:
            return
        if phase == "start":
            self._start = clock_ms()
        else:
            self.ms += clock_ms() - self._start
            self.collections.append(info["generation"])


def libraries_loaded(*names: str) -> dict:
    """Which of `names` (e.g. libnvrtc) this process has mapped: evidence of a compiler in the process."""
    maps = Path("/proc/self/maps").read_text()
    return {name: name in maps for name in names}


def image_file_name(kernel: str, kind: str) -> str:
    """The image file's name: block_sum<float, 256> and cubin -> block_sum_float_256.cubin."""
    return re.sub(r"[^A-Za-z0-9]+", "_", kernel).strip("_") + "." + kind


def write_image(kernel: str, directory: Path) -> dict:
    """The image the example wheel's package loads for `kernel` on device 0 (the device every path
    uses; what paths (1) to (3) load), written to a file in `directory` for the floor paths. run.py
    calls this in a process of its own, once per kernel, before any measured process."""
    import kiln_example
    image = kiln_example.package().image(kernel, device=0)
    if image.kind not in ("cubin", "ptx"):
        sys.exit(f"worker.py: {kernel}: the package's image is of kind {image.kind!r}, not cubin or ptx")
    directory.mkdir(parents=True, exist_ok=True)
    file = directory / image_file_name(kernel, image.kind)
    file.write_bytes(image.data)
    return {"kernel": kernel, "file": str(file), "lowered_name": image.lowered_name, "kind": image.kind,
            "target": image.target, "description": image.description, "bytes": len(image.data)}


def measure(path_name: str, kernel: str, kernel_dir: Path, elements: int,
            image: paths.ImageFile | None = None) -> dict:
    case = cases.CASES[kernel]
    source = (kernel_dir / case.source).read_text()  # read outside the clock for every path alike
    host = case.arrays(elements, np.random.default_rng(12345))
    inputs = {name: array.copy() for name, array in host.items()}
    path = paths.PATHS[path_name](case, source, image)
    collector = CollectorClock()
    gc.callbacks.append(collector)

    start = clock_ms()
    path.import_modules()
    imported = clock_ms()
    path.init_cuda()
    initialized = clock_ms()
    path.allocate(inputs)  # the caller's own data: timed, but outside the first launch and the total
    # As timeit does, keep a collection the earlier steps made due out of the clock, for every path
    # alike: which step a collection lands in depends on what ran before, not on the path (one landed
    # in the first launch of every CuPy path, 0.13-0.16 ms on an H200's host). Any that still runs is
    # recorded (gc_ms).
    gc.collect()
    allocated = clock_ms()
    collector.on = True
    path.prepare()
    prepared = clock_ms()
    path.get_kernel()
    got = clock_ms()
    path.launch(case.grid(elements), case.args(elements))
    launched = clock_ms()
    path.synchronize()
    done = clock_ms()
    collector.on = False
    gc.callbacks.remove(collector)

    error = cases.check(case, host, path.read(case.output), elements)
    if error:
        sys.exit(f"worker.py: path {path_name}: {error}")
    first_launch = done - allocated
    return {
        "path": path_name, "kernel": kernel, "elements": elements,
        "import_ms": imported - start, "init_ms": initialized - imported, "alloc_ms": allocated - initialized,
        "prepare_ms": prepared - allocated, "get_ms": got - prepared, "launch_ms": launched - got,
        "sync_ms": done - launched, "first_launch_ms": first_launch,
        "gc_ms": collector.ms, "gc_generations": collector.collections,
        "total_ms": (initialized - start) + first_launch,
        "module_import_ms": path.module_import_ms, "image": path.image_description(),
        "loaded": libraries_loaded("libnvrtc", "libnvJitLink", "libkiln"), "native": path.native_calls(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--environment", action="store_true", help="print versions and the device, then exit")
    parser.add_argument("--write-image", type=Path, metavar="DIR",
                        help="write the package's image of --kernel for device 0 into DIR, print its details")
    parser.add_argument("--path", choices=sorted(paths.PATHS))
    parser.add_argument("--kernel", choices=sorted(cases.CASES))
    parser.add_argument("--kernel-dir", type=Path)
    parser.add_argument("--elements", type=int, default=cases.DEFAULT_ELEMENTS)
    parser.add_argument("--image", type=Path, help="the floor paths: the image file --write-image wrote")
    parser.add_argument("--lowered-name", help="the floor paths: the kernel's lowered name in --image")
    args = parser.parse_args(argv)
    if args.environment:
        result = environment.describe()
    elif args.write_image:
        if not args.kernel:
            parser.error("--write-image needs --kernel")
        result = write_image(args.kernel, args.write_image)
    else:
        if not (args.path and args.kernel and args.kernel_dir):
            parser.error("--path, --kernel and --kernel-dir are required")
        image = None
        if paths.PATHS[args.path].needs_image:
            if not (args.image and args.lowered_name):
                parser.error(f"--path {args.path} needs --image and --lowered-name")
            image = paths.ImageFile(str(args.image), args.lowered_name)
        result = measure(args.path, args.kernel, args.kernel_dir, args.elements, image)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
