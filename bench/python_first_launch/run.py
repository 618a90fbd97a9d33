#!/usr/bin/env python3
"""Python first-launch benchmark (issue 6): from `import` to the end of the first kernel launch,
Kiln's example wheel against CuPy compiling the same sources, in fresh processes on a GPU.

Runs worker.py once per measurement, interleaving the paths, with a fresh empty CUPY_CACHE_DIR per
process except for the warm-cache path (a directory an untimed warm-up round filled), and prints a
Markdown report of medians. Before any of them, for the floor paths (issue 32: the same library
loading the same image without Kiln), one worker per kernel writes the image the package selects for
device 0 to a file. See README.md beside this file.

    python bench/python_first_launch/run.py [--runs 15] [--out FILE] [--raw FILE.json]
        [--kernel NAME ...] [--path NAME ...] [--kernel-dir DIR] [--elements N]

Run it with the Python that has kiln_example (the example wheel), CuPy and cuda.core installed.
Standard library only in this process. Exit status: 0 done, 1 a run failed or gave a wrong result,
2 bad arguments, 125 no GPU.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import gpu_probe
import report

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))   # bench/, for the reader the benchmarks share
from process_json import ProcessFailed, last_json_line  # noqa: E402
KERNELS = ("saxpy", "scale<float, 4>", "block_sum<float, 256>")
DEFAULT_ELEMENTS = (1 << 20) - 100  # as cases.DEFAULT_ELEMENTS; this process does not import numpy


# A run that cannot be measured: a process failed (ProcessFailed), or what it did breaks a rule of the
# comparison (checked below).
RunFailed = ProcessFailed


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed fresh processes per kernel and path")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "python-first-launch.md",
                        help="where to write the Markdown report (also printed)")
    parser.add_argument("--raw", type=Path, help="the raw samples as JSON (default: --out with .json)")
    parser.add_argument("--kernel", action="append", choices=KERNELS, dest="kernels",
                        help="a kernel to measure, repeatable (default: all three)")
    parser.add_argument("--path", action="append", choices=list(report.PATHS), dest="paths",
                        help="a path to measure, repeatable (default: all nine)")
    parser.add_argument("--kernel-dir", type=Path, default=REPO / "examples" / "python-wheel" / "kernels",
                        help="the example's kernel sources, which CuPy compiles")
    parser.add_argument("--elements", type=int, default=DEFAULT_ELEMENTS, help="array length")
    parser.add_argument("--timeout", type=float, default=120, help="seconds one process may take")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.elements < 1:
        parser.error("--elements must be at least 1")
    if not args.timeout > 0:
        parser.error("--timeout must be more than 0 seconds")
    args.kernels = list(dict.fromkeys(args.kernels or KERNELS))
    args.paths = list(dict.fromkeys(args.paths or report.PATHS))
    args.raw = args.raw or args.out.with_suffix(".json")
    return args


def files_in(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file()}


def run_worker(args: argparse.Namespace, extra: list[str], cache: Path, kiln_cache: Path | None = None,
               settings: dict | None = None) -> dict:
    environment = dict(os.environ, CUPY_CACHE_DIR=str(cache), **(settings or {}))
    if kiln_cache is not None:
        environment["KILN_CACHE_DIR"] = str(kiln_cache)
    for name in ("CUPY_CACHE_IN_MEMORY", "CUPY_CACHE_SAVE_CUDA_SOURCE"):  # would bypass the disk cache
        environment.pop(name, None)
    return last_json_line([sys.executable, str(HERE / "worker.py"), *extra], args.timeout, environment)


def prepare_images(args: argparse.Namespace, temp: Path) -> dict:
    """For the floor paths: kernel -> the image Kiln's package loads for it on device 0, written to a
    file in `temp` by a worker (which imports the wheel; this process does not), before any measured
    process, with its lowered name, description and the file's sha256. Empty if no floor path runs."""
    if not any(path in report.FLOOR_PATHS for path in args.paths):
        return {}
    images = {}
    for kernel in args.kernels:
        image = run_worker(args, ["--write-image", str(temp / "images"), "--kernel", kernel], temp / "image-cache")
        file = Path(image["file"])
        data = file.read_bytes() if file.is_file() else b""
        if not data or len(data) != image["bytes"] or not image["lowered_name"]:
            raise RunFailed(f"kernel {kernel}: the image file {file} holds {len(data)} bytes, the package's image "
                            f"{image['bytes']}, lowered name {image['lowered_name']!r}")
        images[kernel] = dict(image, sha256=hashlib.sha256(data).hexdigest())
    return images


def measure(args: argparse.Namespace, kernel: str, path: str, temp: Path, round_: int,
            images: dict | None = None) -> dict:
    """One process (round 0: the warm-up); checks from the cache directory that CuPy compiled exactly
    when it should: always with a cold cache, once per kernel into the warm one, never for Kiln or a
    floor path. A floor path gets the image file prepare_images wrote (`images`); it must not load
    libkiln, and a Kiln path must load the image the floors load."""
    where = f"path {path}, kernel {kernel}, " + (f"round {round_}" if round_ else "warm-up")
    image = (images or {}).get(kernel)
    extra = ["--path", path, "--kernel", kernel, "--kernel-dir", str(args.kernel_dir), "--elements", str(args.elements)]
    if path in report.FLOOR_PATHS:
        if image is None:
            raise RunFailed(f"{where}: no image file was prepared for the floor path")
        extra += ["--image", image["file"], "--lowered-name", image["lowered_name"]]
    warm = path == "cupy-warm"
    if warm:
        cache = temp / "warm-cache"
        cache.mkdir(exist_ok=True)
    else:
        cache = Path(tempfile.mkdtemp(prefix="cupy-cache-", dir=temp))  # cold: empty, for this process only
    before = files_in(cache)
    kiln_cache = temp / "kiln-warm-cache" if path == "kiln-program-warm" else None
    kiln_before = files_in(kiln_cache) if kiln_cache and kiln_cache.exists() else set()
    sample = run_worker(args, extra, cache, kiln_cache, report.PATH_ENVIRONMENT.get(path))
    after = files_in(cache)
    if kiln_cache is not None:
        # Entries live under two-hex-digit directories; the statistics file changes on every hit.
        kiln_after = {f for f in files_in(kiln_cache) if len(f.split("/")[0]) == 2}
        new = kiln_after - {f for f in kiln_before if len(f.split("/")[0]) == 2}
        if round_ == 0 and not kiln_after:
            raise RunFailed(f"path {path}, kernel {kernel}, warm-up: Kiln cached nothing in {kiln_cache}")
        if round_ > 0 and new:
            raise RunFailed(f"path {path}, kernel {kernel}, round {round_}: Kiln's warm cache missed: {sorted(new)}")
    if path == "cupy-cold" and not after:
        raise RunFailed(f"{where}: CuPy wrote nothing to its empty cache {cache}: did it compile?")
    if (path in report.KILN_PATHS or path in report.FLOOR_PATHS) and after:
        raise RunFailed(f"{where}: something compiled with CuPy into {cache}: {sorted(after)}")
    if path in report.FLOOR_PATHS and sample.get("loaded", {}).get("libkiln"):
        raise RunFailed(f"{where}: the process mapped libkiln; a floor path runs without Kiln")
    if image is not None and path in report.KILN_PATHS and sample.get("image") not in (None, image["description"]):
        raise RunFailed(f"{where}: Kiln loaded {sample['image']}, but the floors load {image['description']}")
    if path == "kiln-ctypes" and sample.get("native"):
        raise RunFailed(f"{where}: the binding used kiln._native although KILN_PYTHON_NATIVE=off")
    if warm and round_ == 0 and after == before:
        raise RunFailed(f"{where}: CuPy added nothing to the warm cache {cache}: did it compile?")
    if warm and round_ > 0 and after != before:
        raise RunFailed(f"{where}: the warm CuPy cache missed: new files {sorted(after - before)}")
    if not warm:
        shutil.rmtree(cache)
    return sample


def benchmark(args: argparse.Namespace, temp: Path, images: dict | None = None) -> list[dict]:
    pairs = [(kernel, path) for kernel in args.kernels for path in args.paths]
    # Round 0 is untimed: it brings the libraries into the page cache and fills the warm CuPy cache.
    for kernel, path in pairs:
        measure(args, kernel, path, temp, 0, images)
    samples = []
    start = time.monotonic()
    print(f"run.py: {args.runs} rounds of {len(pairs)} processes", file=sys.stderr)
    for round_ in range(1, args.runs + 1):
        shift = round_ % len(pairs)  # a different order each round, so no path always follows another
        for kernel, path in pairs[shift:] + pairs[:shift]:
            sample = measure(args, kernel, path, temp, round_, images)
            samples.append(dict(sample, round=round_))
        print(f"run.py: round {round_}/{args.runs} done ({time.monotonic() - start:.0f} s)", file=sys.stderr)
    return samples


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        problem = gpu_probe.no_gpu()
    except gpu_probe.DriverBroken as error:
        print(f"run.py: {error}", file=sys.stderr)
        return 1
    if problem:
        print(f"run.py: {problem}; nothing measured", file=sys.stderr)
        return 125
    missing = [name for name in ("saxpy.cu", "scale.cu", "block_sum.cu") if not (args.kernel_dir / name).is_file()]
    if missing:
        print(f"run.py: {args.kernel_dir} lacks {', '.join(missing)} (see --kernel-dir)", file=sys.stderr)
        return 1
    began = datetime.datetime.now(datetime.timezone.utc)
    try:
        with tempfile.TemporaryDirectory(prefix="kiln-first-launch-") as temp:
            environment = run_worker(args, ["--environment"], Path(temp) / "environment-cache")
            images = prepare_images(args, Path(temp))  # outside every measured process
            samples = benchmark(args, Path(temp), images)
    except RunFailed as failure:
        print(f"run.py: {failure}", file=sys.stderr)
        return 1
    environment = {**gpu_probe.nvidia_driver(), **environment}
    config = {"kernels": args.kernels, "runs": args.runs, "elements": args.elements,
              "date": began.strftime("%Y-%m-%d %H:%M UTC"),
              "wall time": f"{(datetime.datetime.now(datetime.timezone.utc) - began).total_seconds():.0f} s",
              "CuPy options": "none (CuPy adds its bundled CCCL's include paths and --std=c++17 itself)"}
    text = report.render(samples, environment, config, images)
    print(text, end="")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    args.raw.write_text(json.dumps({"environment": environment, "config": config, "images": images,
                                    "samples": samples}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
