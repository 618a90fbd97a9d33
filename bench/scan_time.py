#!/usr/bin/env python3
"""Scan time against compile time (issue 4): how long the clang scanner takes to read a source, cold
and from the scan cache, next to what compiling the same source costs.

For each source, medians over --runs fresh processes:
  cold scan    `kiln scan FILE` (parse with clang, no cache)
  cached scan  the scan phase of `kiln build -v` on an unchanged tree (the cache hit), as kiln reports it
  compile      NVRTC compiling the source for sm_90 with its first discovered instantiation as a name
               expression (bench/tools/nvrtc_cubin.cpp); sources with host code, which NVRTC cannot
               compile, are timed with `nvcc -cubin -arch=sm_90` instead

  python3 bench/scan_time.py [--kiln build/bin/kiln] [--cuda /usr/local/cuda] [--runs 5] [--out FILE]

Standard library only. Works in a temporary directory; writes into the repository only through --out.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# (label, source relative to the repository, include directories relative to the repository)
CASES = [
    ("include-free, NVRTC style", "tests/fixtures/scan/nvrtc_style.cu", []),
    ("trivial kernels + local header", "examples/saxpy/kernels/saxpy.cu", []),
    ("libcu++ functors", "tests/fixtures/scan/functor.cu", []),
    ("CUB BlockReduce template", "examples/saxpy/kernels/block_sum.cu", []),
    ("CUB + host code (nvcc path)", "tests/fixtures/scan/cub_launch.cu", []),
]


def timed(command, cwd=None):
    start = time.perf_counter()
    result = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"scan_time: {' '.join(map(str, command))} failed:\n{result.stderr[-2000:]}")
    return elapsed, result


def build_nvrtc_tool(cuda: Path, temp: Path) -> Path:
    tool = temp / "nvrtc_cubin"
    subprocess.run(["g++", "-std=c++17", "-O1", f"-I{cuda}/include", str(REPO / "bench/tools/nvrtc_cubin.cpp"),
                    f"-L{cuda}/lib64", "-lnvrtc", f"-Wl,-rpath,{cuda}/lib64", "-o", str(tool)], check=True)
    return tool


def scan_json(kiln: Path, source: Path, includes):
    _, result = timed([kiln, "scan", source, "--json", *[f"-I{i}" for i in includes]])
    return json.loads(result.stdout)["files"][0]["result"]


def measure_case(label, rel, includes, args, kiln, cuda, tool, temp):
    source = REPO / rel
    include_dirs = [REPO / i for i in includes]
    result = scan_json(kiln, source, include_dirs)
    expressions = [i["name_expression"] for i in result["instantiations"]]
    cold = [timed([kiln, "scan", source, *[f"-I{i}" for i in include_dirs]])[0] for _ in range(args.runs)]

    # A one-source project in the scratch directory: kiln build's scan phase, warm, is the cache hit.
    project = temp / re.sub(r"\W+", "_", label)
    shutil.copytree(source.parent, project)
    (project / "kiln.toml").write_text(f'name = "bench"\ntargets = ["sm_90"]\n[[source]]\npath = "{source.name}"\n')
    build = [kiln, "build", "-v", "-o", project / "out.kiln", "--cuda-root", cuda]
    timed(build, cwd=project)  # fills the cache
    cached = []
    for _ in range(args.runs):
        _, run = timed(build, cwd=project)
        match = re.search(r"scan: (\d+) cached, (\d+) scanned.*\(([\d.]+) s\)", run.stderr)
        if not match or match.group(1) != "1":
            sys.exit(f"scan_time: expected a cache hit for {rel}:\n{run.stderr[-1000:]}")
        cached.append(float(match.group(3)))

    if result["has_host_code"]:
        compiler = "nvcc -cubin"
        compile_cmd = [cuda / "bin/nvcc", "-cubin", "-arch=sm_90", "-o", temp / "out.cubin", source,
                       *[f"-I{i}" for i in include_dirs]]
    else:
        compiler = "NVRTC"
        compile_cmd = [tool, source, temp / "out.cubin", expressions[0] if expressions else "-", "-arch=sm_90",
                       f"-I{cuda}/include/cccl", f"-I{cuda}/include", f"-I{source.parent}",
                       *[f"-I{i}" for i in include_dirs]]
    compile_times = [timed(compile_cmd)[0] for _ in range(args.runs)]
    return {
        "label": label, "source": rel, "compiler": compiler, "headers": len(result["headers"]),
        "cold": statistics.median(cold), "cached": statistics.median(cached),
        "compile": statistics.median(compile_times),
    }


def main():
    # Every build here measures compiling: Kiln's compile and scan cache stays out of it.
    os.environ["KILN_CACHE"] = "0"
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", type=Path, default=REPO / "build" / "bin" / "kiln")
    parser.add_argument("--cuda", type=Path, default=Path("/usr/local/cuda"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kiln-scan-bench-") as scratch:
        temp = Path(scratch)
        tool = build_nvrtc_tool(args.cuda, temp)
        rows = [measure_case(*case, args, args.kiln.resolve(), args.cuda, tool, temp) for case in CASES]
    lines = [
        "# Scan time against compile time",
        "",
        f"Medians of {args.runs} fresh processes; seconds. Compile: one target (sm_90). Generated by "
        "`python3 bench/scan_time.py`.",
        "",
        "| source | headers read | cold scan | cached scan | compile | compiler | cold scan / compile |",
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['label']} (`{r['source']}`) | {r['headers']} | {r['cold']:.3f} | {r['cached']:.3f} | "
                     f"{r['compile']:.3f} | {r['compiler']} | {r['cold'] / r['compile']:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)


if __name__ == "__main__":
    main()
