#!/usr/bin/env python3
"""What opening the example wheel's package costs in a process that uses CuPy, cuda.core or no CUDA
library: kiln_package_open_file called twice through the binding's ctypes prototype, in fresh
processes, interleaved. The first open pays what a process pays once (libkiln's code and data
touched for the first time, and, where libcuda is loaded, Kiln's binding to it); the second pays
only the open. README.md, "What an open costs", says what it showed.

    PYTHONPATH=<site with kiln_example> python3 bench/python_first_launch/open_cost.py --runs 15

Standard library only. Exit status: 0 done; 1 a process failed; 2 bad arguments. A mode whose
library cannot be imported here (no CuPy, no cuda.core) is reported as skipped, not timed.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

MODES = ("none", "cupy", "cuda.core")

# One sample: make the mode's CUDA context current as the benchmark's paths do (launch_paths.py),
# then open the package twice. The numbers of loaded objects and libcuda's mapping are reported
# because both differ between the modes.
CHILD = r'''
import ctypes, json, os, sys, time
mode = sys.argv[1]
try:
    if mode == "cupy":
        import cupy
        cupy.cuda.Device(0).use()
        cupy.cuda.runtime.free(0)
    elif mode == "cuda.core":
        try:
            from cuda.core import Device
        except ImportError:
            from cuda.core.experimental import Device
        Device(0).set_current()
except ImportError as error:
    print(json.dumps({"skipped": str(error)}))
    sys.exit(0)
import kiln_example
from kiln_example._kiln import _library
with open("/proc/self/maps") as maps:
    mapped = [line.split()[-1] for line in maps if ".so" in line]
runtime = _library.runtime()
path = os.fsencode(kiln_example._PACKAGE_PATH)
clock = time.perf_counter_ns
first, second = ctypes.c_void_p(), ctypes.c_void_p()
start = clock()
status_first = runtime.lib.kiln_package_open_file(path, ctypes.byref(first))
middle = clock()
status_second = runtime.lib.kiln_package_open_file(path, ctypes.byref(second))
end = clock()
if status_first or status_second:
    sys.exit("kiln_package_open_file failed: %d, %d" % (status_first, status_second))
print(json.dumps({"first_us": (middle - start) / 1e3, "second_us": (end - middle) / 1e3,
                  "objects": len(set(mapped)), "libcuda": sorted({m for m in mapped if "libcuda" in m})}))
'''


def sample(mode: str, timeout: float) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        sys.exit(f"open_cost.py: the {mode} process exited {done.returncode}\n{done.stdout}{done.stderr}")
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per mode (default 15)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds one process may take")
    parser.add_argument("--out", help="also write the Markdown table here")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    samples: dict[str, list[dict]] = {mode: [] for mode in MODES}
    for _ in range(args.runs):
        for mode in MODES:
            samples[mode].append(sample(mode, args.timeout))
    lines = ["Medians of %d fresh processes per mode, µs (bench/python_first_launch/README.md, \"What an open "
             "costs\")." % args.runs, "",
             "| process | first open | second open | loaded objects | libcuda mapped from |",
             "|---|---:|---:|---:|---|"]
    for mode, rows in samples.items():
        if any("skipped" in row for row in rows):
            lines.append("| %s | skipped: %s | | | |" % (mode, rows[0].get("skipped", "")))
            continue
        lines.append("| %s | %.1f | %.1f | %d | %s |" % (
            mode, statistics.median(row["first_us"] for row in rows), statistics.median(row["second_us"] for row in rows),
            rows[0]["objects"], ", ".join(rows[0]["libcuda"]) or "not loaded"))
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as file:
            file.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
