#!/usr/bin/env python3
"""Two shards of a trial-like build, cut by the estimate and by recorded compile times (issue 33, point 8).

The fixture has the trial's shape (a CuPy-based library: 88 kernels in a few sources, one source far
costlier than the rest): heavy.cu, a short source instantiating CUB's BlockRadixSort and BlockReduce
over many types and block sizes, and --light sources of plain element-wise kernels that are longer in
bytes but cheap to compile, for two targets. Cases, each shard with a cache of its own (a machine of
its own) and -j 2 (--jobs):

  estimate   kiln build --shard I/2: cut by source bytes (heavy.cu is the smallest file)
  whole      one unsharded build that writes the compile times (--write-times times.txt)
  recorded   kiln build --shard I/2 --shard-times times.txt

Each pair of parts is merged and checked to be the whole build's bytes. Reported: each shard's wall
time and CPU time (user + system of kiln and its workers: steadier than wall time on a shared
machine), and the ratio of the slower shard to the faster. Usage:

  bench/fleet_build/shard_balance.py --kiln build/bin/kiln [--runs 1] [--out results.md]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = """#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>

template <typename T, int BLOCK>
__global__ void sort_then_sum(const T* in, T* sorted, T* sums) {
  using Sort = cub::BlockRadixSort<T, BLOCK, 4>;
  using Reduce = cub::BlockReduce<T, BLOCK>;
  __shared__ union { typename Sort::TempStorage sort; typename Reduce::TempStorage reduce; } storage;
  T items[4];
  const int base = (static_cast<int>(blockIdx.x) * BLOCK + static_cast<int>(threadIdx.x)) * 4;
  for (int k = 0; k < 4; ++k) items[k] = in[base + k];
  Sort(storage.sort).Sort(items);
  for (int k = 0; k < 4; ++k) sorted[base + k] = items[k];
  __syncthreads();
  const T sum = Reduce(storage.reduce).Sum(items);
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
}
"""

HEAVY_TYPES = ["float", "double", "int", "unsigned", "long long", "unsigned long long", "short", "unsigned short"]
LIGHT_OPS = ["a + b", "a - b", "a * b", "a / (b + 1.0f)", "fmaxf(a, b)", "fminf(a, b)", "a * a + b", "sqrtf(fabsf(a)) + b",
             "expf(-a) * b", "a > b ? a : b", "0.5f * (a + b)", "a * 3.0f - b"]


def generate(work, light, heavy_blocks, targets):
    project = work / "project"
    project.mkdir(parents=True)
    lines = [HEAVY]
    for t in HEAVY_TYPES:
        for b in heavy_blocks:
            lines.append(f"template __global__ void sort_then_sum<{t}, {b}>(const {t}*, {t}*, {t}*);")
    (project / "heavy.cu").write_text("\n".join(lines) + "\n")
    manifest = ['name = "trial"', f"targets = [{', '.join(chr(34) + t + chr(34) for t in targets)}]", "",
                "[[source]]", 'path = "heavy.cu"', ""]
    for u in range(light):
        body = [f"// Element-wise kernels of family {u}: plain arithmetic, one thread per element.", ""]
        for k, op in enumerate(LIGHT_OPS):
            body += [f"// Kernel {k} of family {u}: out[i] = {op}, for every i below n; no shared memory, no",
                     "// synchronization, nothing a compiler spends time on. The comment is as long as a",
                     "// library's documentation comment, which the estimate counts and the compiler skips.",
                     f"extern \"C\" __global__ void ew_{u}_{k}(const float* x, const float* y, float* out, int n) {{",
                     "  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);",
                     "  if (i >= n) return;",
                     "  const float a = x[i], b = y[i];",
                     f"  out[i] = {op};",
                     "}", ""]
        (project / f"light_{u:02d}.cu").write_text("\n".join(body))
        manifest += ["[[source]]", f'path = "light_{u:02d}.cu"', ""]
    (project / "kiln.toml").write_text("\n".join(manifest))
    return project


def run(command, cwd, cache, what):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KILN_")}
    env["KILN_CACHE_DIR"] = str(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if result.returncode != 0:
        sys.exit(f"{what} failed: {' '.join(map(str, command))}\n{result.stderr[-4000:]}")
    return wall, cpu, result.stderr


def shard_units(stderr):
    """The units a shard compiled, from -v's step lines ('[1/4] sm_80 heavy.cu (3.10 s)')."""
    units = []
    for line in stderr.splitlines():
        if line.startswith("[") and "] sm_" in line and " scan " not in line:
            units.append(" ".join(line.split("] ", 1)[1].split(" ")[:2]))
    return units


def round_of(kiln, project, scratch, label, jobs):
    build = [kiln, "build", "-j", str(jobs), "-v"]
    results = {}
    for case, extra in (("estimate", []), ("recorded", ["--shard-times", "times.txt"])):
        if case == "recorded":
            wall, cpu, _ = run(build + ["-o", "whole.kiln", "--write-times", "times.txt"], project,
                               scratch / f"{label}-whole", "the whole build")
            results["whole"] = (wall, cpu, [])
        for i in (1, 2):
            wall, cpu, err = run(build + ["--shard", f"{i}/2", "-o", f"{case}{i}.kilnpart"] + extra, project,
                                 scratch / f"{label}-{case}{i}", f"{case} shard {i}")
            results[f"{case} {i}"] = (wall, cpu, shard_units(err))
    for case in ("estimate", "recorded"):
        run([kiln, "merge", f"{case}1.kilnpart", f"{case}2.kilnpart", "-o", f"{case}.kiln"], project,
            scratch / f"{label}-merge-{case}", f"merge of {case}")
        if (project / f"{case}.kiln").read_bytes() != (project / "whole.kiln").read_bytes():
            sys.exit(f"the {case} shards' merge differs from the whole build's package")
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--light", type=int, default=4, help="light sources (default 4)")
    parser.add_argument("--heavy-blocks", default="64,128", help="block sizes of heavy.cu's instantiations")
    parser.add_argument("--targets", default="sm_80,sm_90")
    parser.add_argument("--jobs", type=int, default=2, help="kiln build -j: compiles at once on each shard")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--out")
    args = parser.parse_args()
    kiln = str(Path(args.kiln).resolve())
    targets = args.targets.split(",")
    blocks = [int(b) for b in args.heavy_blocks.split(",")]
    work = Path(tempfile.mkdtemp(prefix="kiln-shard-balance-"))
    rows = {}
    try:
        project = generate(work, args.light, blocks, targets)
        sizes = {p.name: p.stat().st_size for p in sorted(project.glob("*.cu"))}
        for r in range(args.runs):
            for name, value in round_of(kiln, project, work, f"run{r}", args.jobs).items():
                rows.setdefault(name, []).append(value)
            times = (project / "times.txt").read_text()
            print(f"round {r + 1} of {args.runs} done", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    recorded = {}
    for line in times.splitlines()[1:]:
        if line and not line.startswith("#"):
            micros, _target, unit = line.split(" ", 2)
            recorded[unit] = recorded.get(unit, 0) + int(micros) / 1e6
    heavy = recorded.get("heavy.cu", 0)
    rest = sum(v for k, v in recorded.items() if k != "heavy.cu")
    median = {name: (statistics.median(v[0] for v in values), statistics.median(v[1] for v in values), values[-1][2])
              for name, values in rows.items()}
    lines = [f"heavy.cu ({sizes['heavy.cu']} bytes, {len(HEAVY_TYPES) * len(blocks)} CUB sort+reduce instantiations) "
             f"and {args.light} light sources ({', '.join(str(v) for k, v in sizes.items() if k != 'heavy.cu')} bytes, "
             f"{len(LIGHT_OPS)} kernels each), targets {', '.join(targets)}; -j {args.jobs}; {os.cpu_count()} cores; medians of "
             f"{args.runs} run(s). Compile times the whole build recorded: heavy.cu {heavy:.2f} s, the rest "
             f"{rest:.2f} s ({heavy / rest if rest else 0:.1f}x).", "",
             "| case | shard 1 wall (s) | shard 2 wall (s) | slower ÷ faster | shard 1 CPU (s) | shard 2 CPU (s) | "
             "slower ÷ faster | shard 1 compiled |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for case in ("estimate", "recorded"):
        w1, c1, units1 = median[f"{case} 1"]
        w2, c2, _ = median[f"{case} 2"]
        lines.append(f"| {case} | {w1:.2f} | {w2:.2f} | **{max(w1, w2) / min(w1, w2):.2f}x** | {c1:.2f} | {c2:.2f} | "
                     f"{max(c1, c2) / min(c1, c2):.2f}x | {', '.join(units1)} |")
    w, c, _ = median["whole"]
    lines += ["", f"The whole build (unsharded, writing the times): {w:.2f} s wall, {c:.2f} s CPU."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
