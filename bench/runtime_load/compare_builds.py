#!/usr/bin/env python3
"""Kiln's own time in two or more builds of runtime_load_bench, interleaved in fresh processes: case (d)
(a kernel the package lists) and (f-own) (a kernel compiled at run time by an earlier process, answered
from the user's cache). For a change to the loader whose effect is smaller than the spread between
hosts and runs: each round runs every build once per case, so the host's drift falls on all alike.

    python3 bench/runtime_load/compare_builds.py --build before=.carry/before/runtime_load_bench \\
        --build after=.carry/runtime_load_bench --package .carry/saxpy.kiln \\
        --carried .carry/saxpy_carried.kiln --runs 40

Each build needs its own libkiln.so.0 and libkiln_jit.so.0 beside its runtime_load_bench (the bundle's
layout) and gets a user cache of its own, filled before the rounds. Standard library only. Exit status:
0 done; 1 a process failed or a kernel's result was wrong.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import run   # run_once: one runtime_load_bench process and its JSON line

LISTED_KERNEL = "block_sum<float, 256>"


def parse_build(text: str) -> tuple[str, Path]:
    name, separator, bench = text.partition("=")
    if not separator or not name or not bench:
        raise argparse.ArgumentTypeError(f"--build is NAME=PATH to a runtime_load_bench, not '{text}'")
    return name, Path(bench)


def settings(args: argparse.Namespace, bench: Path) -> argparse.Namespace:
    return argparse.Namespace(bench=bench, package=args.package, carried=args.carried, listed=None,
                              sources=args.sources, cuda_include=args.cuda_include)


def checked(result: dict, what: str) -> dict:
    if not result["ok"]:
        sys.exit(f"compare_builds.py: {what}: the kernel's result is wrong")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=parse_build, action="append", required=True,
                        help="NAME=PATH of a runtime_load_bench (twice or more)")
    parser.add_argument("--package", type=Path, required=True, help="the package (d) loads a listed kernel from")
    parser.add_argument("--carried", type=Path, required=True, help="the package (f-own) compiles a kernel from")
    parser.add_argument("--runs", type=int, default=40, help="rounds (default 40)")
    parser.add_argument("--sources", type=Path, default=Path("examples/saxpy/kernels"))
    parser.add_argument("--cuda-include", type=Path, default=Path("/usr/local/cuda/include"))
    args = parser.parse_args()
    if len(args.build) < 2:
        parser.error("give --build at least twice")

    own: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="kiln-compare-builds-") as temp:
        caches = {name: Path(temp) / name for name, _ in args.build}
        # A record is written only for a compile library whose file has stood unchanged two seconds
        # (store::k_settle_ns), and a bundle copied here just now has not: wait, then fill each cache
        # twice (the second run writes the record when the first could not).
        time.sleep(2.5)
        for name, bench in args.build:
            for _ in range(2):
                checked(run.run_once(settings(args, bench), "e", run.RUNTIME_KERNEL, caches[name]), f"{name} filling its cache")
        for i in range(args.runs):
            for name, bench in args.build:
                build = settings(args, bench)
                hit = checked(run.run_once(build, "f-own", run.RUNTIME_KERNEL, caches[name]), f"{name} (f-own)")
                listed = checked(run.run_once(build, "d", LISTED_KERNEL), f"{name} (d)")
                own.setdefault((name, "f-own"), []).append(hit["kiln_ms"])
                own.setdefault((name, "d"), []).append(listed["kiln_ms"])
                own.setdefault((name, "f-own driver calls"), []).append(hit["driver_calls"])
            print(f"compare_builds.py: round {i + 1}/{args.runs} done", file=sys.stderr)

    print(f"Kiln's own time, ms: median (p10-p90) of {args.runs} fresh processes per build and case, interleaved\n")
    print("| build | (d) " + LISTED_KERNEL + " | (f-own) " + run.RUNTIME_KERNEL + " | (f-own) driver calls |")
    print("|---|---:|---:|---:|")
    for name, _ in args.build:
        cells = []
        for case in ("d", "f-own"):
            median, p10, p90 = run.stats(own[(name, case)])
            cells.append(f"{median:.4f} ({p10:.4f}-{p90:.4f})")
        calls = statistics.median(own[(name, "f-own driver calls")])
        print(f"| {name} | {cells[0]} | {cells[1]} | {calls:g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
