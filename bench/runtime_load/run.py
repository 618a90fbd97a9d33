#!/usr/bin/env python3
"""Runtime load benchmark (issue 3): from a kernel's name to its first finished launch, on a GPU.

Runs runtime_load_bench once per measurement, each time in a fresh process (package open and
context current before the clock starts), round-robin over the cases so drift touches all alike,
and prints a Markdown table of medians. See README.md beside this file for what each case times.

    python3 bench/runtime_load/run.py --bench .carry/runtime_load_bench --package .carry/saxpy.kiln \
        [--carried .carry/saxpy_carried.kiln --listed .carry/saxpy_listed.kiln] [--runs 15] [--sources examples/saxpy/kernels] \
        [--cuda-include /usr/local/cuda/include] [--out runtime_load.md] [--raw runtime_load.jsonl]

Python 3.9+, standard library only. Exit status: 0 done, 1 a run failed or gave a wrong result.
"""
from __future__ import annotations

import argparse
import json
import statistics
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))   # for the reader the benchmarks share
from process_json import ProcessFailed, last_json_line  # noqa: E402
KERNELS = ["saxpy", "block_sum<float, 256>"]
CASES = {
    "a": "(a) Kiln: get_kernel + launch + sync",
    "b": "(b) driver alone: load + get + launch + sync",
    "c": "(c) NVRTC: compile + load + launch + sync",
    "d": "(d) Kiln's own time in (a)",
}


# Issue 14: a kernel the package lacks, compiled at run time from the sources it carries. (e) and (f)
# are case (a) of the benchmark program on saxpy_carried.kiln, with a fresh empty KILN_CACHE_DIR per
# process (e) or one an earlier process filled (f); (f-own) is case (d) of a hit, Kiln's own time in
# it; (g) is case (a) of the same kernel listed in saxpy_listed.kiln, the package path (f) is held
# to; (c) compiles the same kernel with NVRTC directly.
RUNTIME_KERNEL = "block_sum<float, 512>"
RUNTIME_CASES = {
    "e": "(e) Kiln, compiled at run time (cold cache): get_kernel + launch + sync",
    "f": "(f) Kiln, from the run-time cache (another process compiled it): get_kernel + launch + sync",
    "f-own": "(f-own) Kiln's own time in (f)",
    "g": "(g) Kiln, the same kernel listed in a package: get_kernel + launch + sync",
    "c": "(c) NVRTC: compile + load + launch + sync",
}
# Which program case and package each run-time case runs.
PROGRAM_CASE = {"e": "a", "f": "a", "f-own": "d", "g": "a"}


def bench_result(command: list[str], environment: dict | None = None) -> dict:
    """The JSON line one runtime_load_bench process prints; exits naming the command when it fails."""
    try:
        return last_json_line(command, 300, environment)
    except ProcessFailed as failure:
        sys.exit(f"{Path(sys.argv[0]).name}: {failure}")


def run_once(args: argparse.Namespace, case: str, kernel: str, cache: Path | None = None) -> dict:
    package = {"e": args.carried, "f": args.carried, "f-own": args.carried, "g": args.listed}.get(case, args.package)
    command = [str(args.bench), "--case", PROGRAM_CASE.get(case, case), "--kernel", kernel,
               "--package", str(package), "--sources", str(args.sources), "--cuda-include", str(args.cuda_include)]
    environment = dict(os.environ)
    if cache is not None:
        environment["KILN_CACHE_DIR"] = str(cache)
    result = bench_result(command, environment)
    result["case"] = case
    if case in ("d", "f-own"):
        result["kiln_ms"] = result["total_ms"] - result["driver_ms"]
    return result


def stats(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return values[0], values[0], values[0]
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    return statistics.median(values), deciles[0], deciles[-1]


def ms(value: float) -> str:
    return f"{value:.3f}"


def table(results: list[dict], runs: int) -> str:
    def values(case: str, kernel: str, key: str = "total_ms") -> list[float]:
        return [r[key] for r in results if r["case"] == case and r["kernel"] == kernel]

    arch = results[0]["arch"]
    rows = [f"Device compute capability {arch // 10}.{arch % 10}; {runs} fresh processes per row; "
            "times in milliseconds.", "",
            "| case | median ms | p10 | p90 | ratio a/b | ratio c/a | d/a |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for kernel in KERNELS:
        medians = {case: stats(values(case, kernel, "kiln_ms" if case == "d" else "total_ms"))[0] for case in CASES}
        for case, label in CASES.items():
            median, p10, p90 = stats(values(case, kernel, "kiln_ms" if case == "d" else "total_ms"))
            ratios = ["", "", ""]
            if case == "a":
                ratios = [f"{medians['a'] / medians['b']:.2f}", f"{medians['c'] / medians['a']:.1f}",
                          f"{medians['d'] / medians['a']:.2f}"]
            rows.append(f"| `{kernel}` {label} | {ms(median)} | {ms(p10)} | {ms(p90)} | " + " | ".join(ratios) + " |")
        compile_median, compile_p10, compile_p90 = stats(values("c", kernel, "compile_ms"))
        rows.append(f"| `{kernel}` (c) of which NVRTC compile | {ms(compile_median)} | {ms(compile_p10)} | "
                    f"{ms(compile_p90)} | | | |")
    for key, label in [("init_ms", "excluded: cuInit"), ("context_ms", "excluded: primary context retain + set")]:
        median, p10, p90 = stats([r[key] for r in results])
        rows.append(f"| {label} | {ms(median)} | {ms(p10)} | {ms(p90)} | | | |")
    median, p10, p90 = stats([r["driver_load_ms"] for r in results if r["case"] == "d"])
    rows.append(f"| Kiln's driver binding (excluded from (a) and (d): done when the package is opened, since the process has libcuda loaded) | {ms(median)} | {ms(p10)} | "
                f"{ms(p90)} | | | |")
    rows.append("")
    for kernel in KERNELS:
        for case in ("b", "c"):
            images = sorted({r["image"] for r in results if r["case"] == case and r["kernel"] == kernel})
            rows.append(f"- `{kernel}` ({case}) loads: {'; '.join(images)}")
    rows += steps_table(results)
    calls = sorted({r["driver_calls"] for r in results if r["case"] == "d"})
    rows.append(f"- (d) driver calls per first launch (the final synchronize included): {calls}")
    at_open = sorted({r.get("open_driver_calls", 0) for r in results if r["case"] == "d"})
    rows.append(f"- (d) driver calls when the package is opened (Kiln binds to the loaded driver: the device "
                f"count, and a single device's compute capability, asked once per process): {at_open}")
    return "\n".join(rows) + "\n"


def steps_table(results: list[dict]) -> list[str]:
    """The driver's time per call in the floor (b) and in Kiln's path (d), medians: where a/b's gap is
    not Kiln's own time, it shows in which call the driver works longer for Kiln."""
    rows = ["", "Time inside each driver call of the first launch, medians in milliseconds ((d) also counts "
            "what Kiln's path calls that the floor does not):", "",
            "| kernel | call | (b) floor | (d) Kiln's path | d - b |", "|---|---|---:|---:|---:|"]
    for kernel in KERNELS:
        names: list[str] = []
        for r in results:
            if r["kernel"] == kernel and r["case"] in ("b", "d"):
                names += [n for n in r.get("driver_steps", {}) if n not in names]
        for name in names:
            floor = [r["driver_steps"].get(name, 0.0) for r in results if r["case"] == "b" and r["kernel"] == kernel]
            kiln = [r["driver_steps"].get(name, 0.0) for r in results if r["case"] == "d" and r["kernel"] == kernel]
            if not floor or not kiln:
                continue
            b, d = stats(floor)[0], stats(kiln)[0]
            rows.append(f"| `{kernel}` | {name} | {ms(b)} | {ms(d)} | {d - b:+.3f} |")
        d_total = stats([r["total_ms"] for r in results if r["case"] == "d" and r["kernel"] == kernel])[0]
        rows.append(f"| `{kernel}` | (d) whole first launch, the static copy | | {ms(d_total)} | |")
    return rows


def runtime_table(results: list[dict], runs: int) -> str:
    """Cases (e), (f), (f-own), (g) and (c) for the kernel saxpy_carried.kiln lacks."""
    def values(case: str, key: str = "total_ms") -> list[float]:
        return [r[key] for r in results if r["case"] == case and r["kernel"] == RUNTIME_KERNEL]

    rows = ["", f"Compiled at run time (issue 14): `{RUNTIME_KERNEL}`, which saxpy_carried.kiln lacks; "
            f"{runs} fresh processes per row, the cases interleaved; times in milliseconds.", "",
            "| case | median ms | p10 | p90 | ratio e/c | ratio f/g |", "|---|---:|---:|---:|---:|---:|"]
    key_of = {"f-own": "kiln_ms"}
    medians = {case: stats(values(case, key_of.get(case, "total_ms")))[0] for case in RUNTIME_CASES}
    for case, label in RUNTIME_CASES.items():
        median, p10, p90 = stats(values(case, key_of.get(case, "total_ms")))
        ratios = ["", ""]
        if case == "e":
            ratios[0] = f"{medians['e'] / medians['c']:.2f}"
        if case == "f":
            ratios[1] = f"{medians['f'] / medians['g']:.2f}"
        rows.append(f"| `{RUNTIME_KERNEL}` {label} | {ms(median)} | {ms(p10)} | {ms(p90)} | " + " | ".join(ratios) + " |")
    rows += ["", "e/c: a cold run-time compile (dlopen of NVRTC and nvJitLink, the carried headers written out, "
             "compile, trimmed link, cache write) against NVRTC called directly (linked, headers read in place, "
             "untrimmed cubin); f/g: a hit in the user's cache against the same kernel from a package."]
    return "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, required=True, help="the runtime_load_bench program")
    parser.add_argument("--package", type=Path, required=True, help="the saxpy example's package")
    parser.add_argument("--carried", type=Path, help="saxpy_carried.kiln: adds the run-time compile cases (needs --listed)")
    parser.add_argument("--listed", type=Path, help="saxpy_listed.kiln: case (g), the baseline of the cache hit (f)")
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per case and kernel (at least 15)")
    parser.add_argument("--sources", type=Path, default=REPO / "examples" / "saxpy" / "kernels")
    parser.add_argument("--cuda-include", type=Path, default=Path("/usr/local/cuda/include"))
    parser.add_argument("--out", type=Path, help="also write the table here")
    parser.add_argument("--raw", type=Path, help="write every run's JSON line here")
    args = parser.parse_args()
    if args.runs < 15:
        parser.error("--runs must be at least 15")
    if bool(args.carried) != bool(args.listed):
        parser.error("--carried and --listed go together")

    # One warm-up process first: the first process after a while pays for loading the driver's files.
    run_once(args, "a", KERNELS[0])
    results = []
    for i in range(args.runs):
        for kernel in KERNELS:
            for case in CASES:
                result = run_once(args, case, kernel)
                if not result["ok"]:
                    print(f"run.py: case {case} {kernel}: the kernel's result is wrong", file=sys.stderr)
                    return 1
                results.append(result)
        print(f"run.py: round {i + 1}/{args.runs} done", file=sys.stderr)
    if args.carried:
        with tempfile.TemporaryDirectory(prefix="kiln-runtime-load-") as temp:
            warm = Path(temp) / "warm"
            run_once(args, "e", RUNTIME_KERNEL, warm)   # fills the cache (f) reads
            for i in range(args.runs):
                for case in RUNTIME_CASES:
                    cold = Path(tempfile.mkdtemp(dir=temp))
                    result = run_once(args, case, RUNTIME_KERNEL, warm if case in ("f", "f-own") else cold)
                    shutil.rmtree(cold)
                    if not result["ok"]:
                        print(f"run.py: case {case} {RUNTIME_KERNEL}: the kernel's result is wrong", file=sys.stderr)
                        return 1
                    results.append(result)
                print(f"run.py: run-time compile round {i + 1}/{args.runs} done", file=sys.stderr)
    if args.raw:
        args.raw.write_text("".join(json.dumps(r) + "\n" for r in results))
    report = table(results, args.runs) + (runtime_table(results, args.runs) if args.carried else "")
    print(report, end="")
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
