#!/usr/bin/env python3
"""A build of many template instantiations (issue 16, point 4), side by side in one run:

  kiln cold          empty local cache, no remote cache (and again with KILN_NVRTC_PCH=0: no shared
                     precompiled headers)
  kiln warm-local    every image in the local cache, the package deleted
  kiln warm-remote   a fresh local cache, every image on the remote cache (nginx WebDAV on loopback,
                     filled by a cold build that wrote to it: "kiln cold + remote writes")
  kiln 2 shards      `kiln build --shard I/2` one after the other, each with a fresh cache (two
                     machines), then `kiln merge` on a third: the slowest shard and the merge
  nvcc cold / warm   the same sources, one `ccache nvcc -fatbin --threads 4` per source with a
                     -gencode per target, two at a time (as kiln -j2), with an empty and a warm ccache

The generated source set: --units sources, each including CUB's BlockReduce through one shared
header and explicitly instantiating --per-unit instantiations of one kernel template (default 16 x 16
= 256), for --targets (default sm_80,sm_86,sm_90,sm_120). Every kiln build runs with -j2 and the same
scan; medians over --runs. Usage:

  bench/fleet_build/run.py --kiln build/bin/kiln [--runs 1] [--out results.md]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "remote"))
import servers  # noqa: E402  (nginx on loopback, as the remote cache's tests start it)

HEADER = """#pragma once
#include <cub/block/block_reduce.cuh>

template <typename T, int BLOCK, int ITEMS>
__global__ void tile_sum(const T* in, T* out, int n) {
  using Reduce = cub::BlockReduce<T, BLOCK>;
  __shared__ typename Reduce::TempStorage storage;
  T items[ITEMS];
  const int base = static_cast<int>(blockIdx.x) * BLOCK * ITEMS + static_cast<int>(threadIdx.x);
  for (int k = 0; k < ITEMS; ++k) items[k] = base + k * BLOCK < n ? in[base + k * BLOCK] : T(0);
  const T sum = Reduce(storage).Sum(items);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
"""

TYPES = ["float", "double", "int", "unsigned", "long long", "short", "char", "unsigned long long"]
BLOCKS = [64, 128, 256, 512]
ITEMS = [1, 2, 3, 4, 6, 8, 12, 16]


def combos():
    for t in TYPES:
        for b in BLOCKS:
            for i in ITEMS:
                yield t, b, i


def generate(work, units, per_unit, targets):
    project = work / "project"
    (project / "include").mkdir(parents=True)
    (project / "include" / "tile_sum.cuh").write_text(HEADER)
    all_combos = list(combos())
    if units * per_unit > len(all_combos):
        sys.exit(f"at most {len(all_combos)} instantiations")
    manifest = [f'name = "fleet"', f"targets = [{', '.join(repr(t).replace(chr(39), chr(34)) for t in targets)}]",
                'include_dirs = ["include"]', ""]
    for u in range(units):
        lines = ['#include "tile_sum.cuh"', ""]
        for t, b, i in all_combos[u * per_unit:(u + 1) * per_unit]:
            lines.append(f"template __global__ void tile_sum<{t}, {b}, {i}>(const {t}*, {t}*, int);")
        (project / f"unit_{u:02d}.cu").write_text("\n".join(lines) + "\n")
        manifest += ["[[source]]", f'path = "unit_{u:02d}.cu"', ""]
    (project / "kiln.toml").write_text("\n".join(manifest))
    return project


def run(command, cwd, env, what):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{what} failed: {' '.join(map(str, command))}\n{result.stderr[-4000:]}")
    return seconds, result.stderr


def kiln_env(cache, remote=None, pch=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("KILN_")}
    env["KILN_CACHE_DIR"] = str(cache)
    if remote:
        env["KILN_REMOTE_CACHE"] = remote
    if not pch:
        env["KILN_NVRTC_PCH"] = "0"
    return env


def kiln_round(kiln, project, scratch, nginx_url, label):
    """One round of every kiln case, each in fresh directories; seconds by case."""
    times = {}
    build = [kiln, "build", "-j", "2", "-v"]
    times["kiln cold, no shared PCH"], _ = run(build + ["-o", "nopch.kiln"], project,
                                              kiln_env(scratch / f"{label}-nopch", pch=False), "kiln cold, no PCH")
    cold_cache = scratch / f"{label}-cold"
    times["kiln cold"], err = run(build + ["-o", "cold.kiln"], project, kiln_env(cold_cache), "kiln cold")
    if (project / "nopch.kiln").read_bytes() != (project / "cold.kiln").read_bytes():
        sys.exit("the package built without shared PCHs differs from the one built with them")
    (project / "cold.kiln").unlink()
    times["kiln warm-local"], _ = run(build + ["-o", "cold.kiln"], project, kiln_env(cold_cache), "kiln warm")
    times["kiln cold + remote writes"], _ = run(build + ["-o", "fill.kiln"], project,
                                                kiln_env(scratch / f"{label}-fill", nginx_url), "kiln fill")
    times["kiln warm-remote"], err = run(build + ["-o", "remote.kiln"], project,
                                         kiln_env(scratch / f"{label}-remote", nginx_url), "kiln warm-remote")
    if "0 misses" not in err:
        sys.exit("warm-remote was not all hits:\n" + err[-2000:])
    shard_times = []
    for i in (1, 2):
        seconds, _ = run(build + ["--shard", f"{i}/2", "-o", f"part{i}.kilnpart"], project,
                         kiln_env(scratch / f"{label}-shard{i}"), f"kiln shard {i}")
        shard_times.append(seconds)
    times["kiln shard 1/2"], times["kiln shard 2/2"] = shard_times
    times["kiln merge"], _ = run([kiln, "merge", "part1.kilnpart", "part2.kilnpart", "-o", "merged.kiln"], project,
                                 kiln_env(scratch / f"{label}-merge"), "kiln merge")
    reference = (project / "cold.kiln").read_bytes()
    for name in ("fill.kiln", "remote.kiln", "merged.kiln"):
        if (project / name).read_bytes() != reference:
            sys.exit(f"{name} differs from the cold build's package")
    return times


def nvcc_build(project, targets, ccache_dir, units):
    gencode = []
    for t in targets:
        arch = t.split("_")[1]
        kind = "compute" if t.startswith("compute") else "sm"
        gencode += ["-gencode", f"arch=compute_{arch},code={kind}_{arch}"]
    env = dict(os.environ, CCACHE_DIR=str(ccache_dir))

    def one(u):
        source = f"unit_{u:02d}.cu"
        return subprocess.run(["ccache", "nvcc", "-fatbin", "--threads", "4", "-Iinclude", "-o", f"unit_{u:02d}.fatbin",
                               source, *gencode], cwd=project, env=env, capture_output=True, text=True)
    start = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, range(units)))
    seconds = time.perf_counter() - start
    for r in results:
        if r.returncode != 0:
            sys.exit("nvcc failed:\n" + r.stderr[-3000:])
    stats = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True).stdout
    return seconds, stats


def ccache_hits(stats):
    values = dict(line.split("\t", 1) for line in stats.splitlines() if "\t" in line)
    return int(values.get("direct_cache_hit", 0)) + int(values.get("preprocessed_cache_hit", 0))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--units", type=int, default=16)
    parser.add_argument("--per-unit", type=int, default=16)
    parser.add_argument("--targets", default="sm_80,sm_86,sm_90,sm_120")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--out")
    args = parser.parse_args()
    kiln = str(Path(args.kiln).resolve())
    targets = args.targets.split(",")
    work = Path(tempfile.mkdtemp(prefix="kiln-fleet-"))
    nginx = servers.Nginx()
    rows = {}
    try:
        project = generate(work, args.units, args.per_unit, targets)
        for r in range(args.runs):
            nginx_url = nginx.url() + f"/run{r}"
            for name, seconds in kiln_round(kiln, project, work, nginx_url, f"run{r}").items():
                rows.setdefault(name, []).append(seconds)
            ccache_dir = work / f"ccache{r}"
            cold, _ = nvcc_build(project, targets, ccache_dir, args.units)
            warm, stats = nvcc_build(project, targets, ccache_dir, args.units)
            rows.setdefault("nvcc cold (ccache empty)", []).append(cold)
            rows.setdefault("nvcc warm (ccache)", []).append(warm)
            rows.setdefault("(ccache hits in the warm run)", []).append(ccache_hits(stats))
            print(f"round {r + 1} of {args.runs} done", file=sys.stderr)
    finally:
        nginx.stop()
        shutil.rmtree(work, ignore_errors=True)

    median = {name: statistics.median(values) for name, values in rows.items()}
    cold = median["kiln cold"]
    lines = [f"{args.units} units x {args.per_unit} instantiations = {args.units * args.per_unit}, targets "
             f"{', '.join(targets)}; {os.cpu_count()} cores; medians of {args.runs} run(s), seconds", "",
             "| case | seconds | cold ÷ case |", "|---|---:|---:|"]
    for name, value in median.items():
        if name.startswith("("):
            lines.append(f"| {name} | {value:.0f} | |")
        else:
            lines.append(f"| {name} | {value:.2f} | {cold / value:.1f}x |")
    slowest = max(median["kiln shard 1/2"], median["kiln shard 2/2"])
    lines += ["", f"- warm-remote vs cold: **{cold / median['kiln warm-remote']:.1f}x** faster (target: at least 20x)",
              f"- kiln cold vs nvcc cold: **{median['nvcc cold (ccache empty)'] / cold:.2f}x** faster (target: at least 2x)",
              f"- shared NVRTC PCHs: cold {median['kiln cold, no shared PCH']:.2f} s without, {cold:.2f} s with "
              f"({median['kiln cold, no shared PCH'] / cold:.2f}x)",
              f"- 2 shards: slowest shard {slowest:.2f} s + merge {median['kiln merge']:.2f} s = "
              f"{slowest + median['kiln merge']:.2f} s, {cold / (slowest + median['kiln merge']):.2f}x faster than one machine"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
