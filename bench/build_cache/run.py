#!/usr/bin/env python3
"""kiln build with the compile cache against nvcc with ccache, on examples/saxpy (2 units x its
targets), side by side in one run:

  cold     empty cache, no outputs
  warm     every image in the cache, the output deleted
  header   kernels/common.cuh (used by saxpy.cu only) edited
  no-op    nothing changed, the output present

nvcc gets the same content: per unit one `ccache nvcc -c` with a -gencode per SASS target and one
for the PTX target, on a copy of the source followed by the manifest's instantiations, both units
at once (like kiln -j2). Usage: run.py --kiln build/bin/kiln [--runs 3] [--out results.md]
"""
import argparse
import json
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
EXAMPLE = ROOT / "examples" / "saxpy"
# The manifest's instantiations, as explicit instantiations nvcc compiles (the same name expressions).
INSTANTIATIONS = {
    "kernels/saxpy.cu": [f"template __global__ void scale<{t}>({t}*, {t}, int);" for t in ("float", "double")],
    "kernels/block_sum.cu": [f"template __global__ void block_sum<{t}, {b}>(const {t}*, {t}*, int);"
                             for t in ("float", "double") for b in (128, 256)],
}


def timed(command, cwd, env):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, command))}\n{result.stderr}")
    return seconds, result.stderr


def kiln_targets(kiln, package, env):
    out = subprocess.run([kiln, "inspect", "--json", package], env=env, capture_output=True, text=True, check=True)
    return [t["target"] if isinstance(t, dict) else t for t in json.loads(out.stdout)["targets"]]


def nvcc_build(project, targets, env):
    """Both units at once, each one nvcc call with every target, through ccache."""
    gencode = []
    for t in targets:
        arch = t.split("_")[1]
        gencode += ["-gencode", f"arch=compute_{arch},code={'compute' if t.startswith('compute') else 'sm'}_{arch}"]
    def one(source):
        out = project / (source + ".o")
        return subprocess.run(["ccache", "nvcc", "-c", "-rdc=false", "-o", str(out), source, *gencode],
                              cwd=project, env=env, capture_output=True, text=True)
    start = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(one, list(INSTANTIATIONS)))
    seconds = time.perf_counter() - start
    for r in results:
        if r.returncode != 0:
            sys.exit("nvcc failed:\n" + r.stderr)
    return seconds


def compiled(stderr):
    for line in stderr.splitlines():
        if line.startswith("compile: "):
            return line
    return "?"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out")
    args = parser.parse_args()
    kiln = str(Path(args.kiln).resolve())
    rows = {}
    with tempfile.TemporaryDirectory(prefix="kiln-bench-cache-") as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, KILN_CACHE_DIR=str(tmp / "kiln-cache"), CCACHE_DIR=str(tmp / "ccache"),
                   CCACHE_NOHASHDIR="1", CCACHE_BASEDIR=str(tmp))
        samples = {k: [] for k in ("kiln cold", "kiln warm", "kiln header", "kiln no-op",
                                   "nvcc+ccache cold", "nvcc+ccache warm", "nvcc+ccache header", "nvcc+ccache no-op")}
        notes = {}
        targets = None
        for run in range(args.runs):
            project = tmp / f"saxpy-{run}"
            shutil.copytree(EXAMPLE, project)
            shutil.rmtree(tmp / "kiln-cache", ignore_errors=True)
            build = [kiln, "build", "-o", "saxpy.kiln", "-j", "2", "-v"]
            for name, prepare in (("cold", None), ("warm", "delete"), ("header", "edit"), ("no-op", None)):
                if prepare == "delete":
                    (project / "saxpy.kiln").unlink()
                if prepare == "edit":
                    with open(project / "kernels/common.cuh", "a") as f:
                        f.write(f"\n// edited {run}\n")
                seconds, stderr = timed(build, project, env)
                samples["kiln " + name].append(seconds)
                notes["kiln " + name] = compiled(stderr)
            targets = targets or kiln_targets(kiln, project / "saxpy.kiln", env)

            nv = tmp / f"nvcc-{run}"
            shutil.copytree(EXAMPLE, nv)
            subprocess.run(["ccache", "-C"], env=env, capture_output=True)
            for source, lines in INSTANTIATIONS.items():
                (nv / source).write_text((nv / source).read_text() + "\n" + "\n".join(lines) + "\n")
            for name, prepare in (("cold", None), ("warm", "delete"), ("header", "edit"), ("no-op", None)):
                if prepare == "delete":
                    for o in nv.glob("kernels/*.o"):
                        o.unlink()
                if prepare == "edit":
                    with open(nv / "kernels/common.cuh", "a") as f:
                        f.write(f"\n// edited {run}\n")
                samples["nvcc+ccache " + name].append(nvcc_build(nv, targets, env))
    lines = [f"targets: {len(targets)} ({', '.join(targets)}); median of {args.runs} runs, seconds", "",
             "| case | kiln | nvcc + ccache | kiln compiles |", "|---|---|---|---|"]
    for name in ("cold", "warm", "header", "no-op"):
        k = statistics.median(samples["kiln " + name])
        n = statistics.median(samples["nvcc+ccache " + name])
        lines.append(f"| {name} | {k:.3f} | {n:.3f} | {notes['kiln ' + name]} |")
    cold = statistics.median(samples["kiln cold"])
    warm = statistics.median(samples["kiln warm"])
    lines += ["", f"kiln warm vs cold: {cold / warm:.1f}x faster"]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
