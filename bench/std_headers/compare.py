#!/usr/bin/env python3
"""Standard headers in device-only sources (issue 10, point 3): Kiln's choice against the other one.

A device-only source that includes <cmath>, <cstdio>, <type_traits>, ... cannot go through NVRTC,
which has no C or C++ standard library. Kiln routes such a source to nvcc (NVRTC rejects it, nvcc
compiles it to LTO-IR, nvJitLink links it like NVRTC's output). The other choice is to ship JIT-safe
headers for NVRTC, as Jitify does: jit_safe/ is a prototype of that (each header maps std onto
libcu++'s cuda::std, or is empty where NVRTC has the function built in). For each source in
kernels/, this builds the same manifest both ways and compares build time (median of --runs
`kiln build` runs, scan cache cleared each time) and image size per target.

  python3 bench/std_headers/compare.py [--kiln build/bin/kiln] [--runs 3] [--out bench/results/std-headers.md]

Standard library only. Works in a temporary directory; writes into the repository only through --out.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TARGETS = ["sm_80", "sm_90", "compute_80"]
# What nvcc needs besides: libstdc++'s std::get is a constexpr host function, which device code may
# call only with this flag (libcu++'s, which the JIT-safe headers use, is __host__ __device__).
NVCC_OPTIONS = {"tuple.cu": ["--expt-relaxed-constexpr"]}


def build(kiln, project, runs):
    """(median seconds, {target: image bytes}, compiler) of building project/kiln.toml."""
    times = []
    for _ in range(runs):
        start = time.monotonic()
        p = subprocess.run([str(kiln), "build", "-o", "out.kiln", "-v", "-j", "2"], cwd=project, capture_output=True,
                           text=True)
        times.append(time.monotonic() - start)
        if p.returncode != 0:
            raise SystemExit(f"kiln build failed in {project}:\n{p.stderr}")
    inspected = json.loads(subprocess.run([str(kiln), "inspect", "--json", "out.kiln"], cwd=project, check=True,
                                          capture_output=True, text=True).stdout)
    sizes = {i["target"]: i["size"] for u in inspected["units"] for i in u["images"]}
    compiler = "nvcc" if "\n  nvcc:" in p.stderr else "NVRTC"
    return statistics.median(times), sizes, compiler


def project_for(source, work, jit_safe):
    project = work / (source.stem + ("-jit-safe" if jit_safe else "-nvcc"))
    project.mkdir(parents=True)
    shutil.copy(source, project / source.name)
    extra = ""
    if jit_safe:
        shutil.copytree(HERE / "jit_safe", project / "jit_safe")
        extra = 'include_dirs = ["jit_safe"]\n'
    else:
        extra = f"options = {json.dumps(NVCC_OPTIONS.get(source.name, []))}\n"
    (project / "kiln.toml").write_text(f"targets = {json.dumps(TARGETS)}\n{extra}[[source]]\npath = \"{source.name}\"\n")
    return project


def main():
    # Every build here measures compiling: Kiln's compile and scan cache stays out of it.
    os.environ["KILN_CACHE"] = "0"
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", type=Path, default=REPO / "build/bin/kiln")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "bench/results/std-headers.md")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for source in sorted((HERE / "kernels").glob("*.cu")):
            routed = build(args.kiln.resolve(), project_for(source, Path(tmp), False), args.runs)
            shimmed = build(args.kiln.resolve(), project_for(source, Path(tmp), True), args.runs)
            rows.append((source.name, routed, shimmed))
    out = ["# Standard headers in device-only sources: nvcc routing against JIT-safe headers", "",
           f"`python3 bench/std_headers/compare.py --runs {args.runs}`: each source of bench/std_headers/kernels built "
           f"for {', '.join(TARGETS)} by `kiln build -j 2` (median of {args.runs}, with KILN_CACHE=0: compiled every time), as "
           "Kiln routes it (NVRTC rejects the header, nvcc compiles) and with the prototype JIT-safe headers of "
           "bench/std_headers/jit_safe on the include path (NVRTC compiles). Both are linked by nvJitLink "
           "with -optimize-unused-variables. Sizes are decoded image bytes. tuple.cu needs "
           "--expt-relaxed-constexpr under nvcc (libstdc++'s std::get is a constexpr host function) and nothing "
           "with the JIT-safe headers (libcu++'s is __host__ __device__).", "",
           "| source | nvcc routing: compiler, time | JIT-safe headers: compiler, time | time ratio | "
           + " | ".join(f"{t} bytes (routed / JIT-safe)" for t in TARGETS) + " |",
           "|---|---|---|---:|" + "---:|" * len(TARGETS)]
    for name, routed, shimmed in rows:
        sizes = " | ".join(f"{routed[1].get(t, 0)} / {shimmed[1].get(t, 0)}" for t in TARGETS)
        out.append(f"| {name} | {routed[2]}, {routed[0]:.2f} s | {shimmed[2]}, {shimmed[0]:.2f} s | "
                   f"{routed[0] / shimmed[0]:.2f} | {sizes} |")
    text = "\n".join(out) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
