#!/usr/bin/env python3
"""What opening the example wheel's package costs in a process that uses CuPy, cuda.core or no CUDA
library: kiln_package_open_file called twice through the binding's ctypes prototype, in fresh
processes (open_sample.py, one per sample), interleaved. The first open pays what a process pays
once (libkiln's code and data touched for the first time, and, where libcuda is loaded, Kiln's
binding to it); the second pays only the open. README.md, "What an open costs", says what it showed.

    PYTHONPATH=<site with kiln_example> python3 bench/python_first_launch/open_cost.py --runs 15

Standard library only. Exit status: 0 done; 1 a process failed or took longer than --timeout; 2 bad
arguments. A mode whose library cannot be imported here (no CuPy, no cuda.core) is reported as
skipped, not timed.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from run import RunFailed, last_json_line   # the benchmarks' reader of a process's JSON line (bench/process_json.py)

HERE = Path(__file__).resolve().parent

MODES = ("none", "cupy", "cuda.core")   # open_sample.py's


def sample(mode: str, timeout: float) -> dict:
    try:
        return last_json_line([sys.executable, str(HERE / "open_sample.py"), mode], timeout)
    except RunFailed as failure:
        sys.exit(f"open_cost.py: the {mode} process: {failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per mode (default 15)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds one process may take")
    parser.add_argument("--out", help="also write the Markdown table here")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not args.timeout > 0:
        parser.error("--timeout must be more than 0 seconds")
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
