#!/usr/bin/env python3
"""Image parts through Kiln (issue 16, point 5): build time and first launch of one kernel.

Two steps, because the build machine has no GPU and the GPU machine has no clang:

  run.py build  --kiln build/bin/kiln --work /tmp/kiln-parts [--kernels 10000] [-j 2] [--bounds 16,32,8]
      here: writes three projects of the tile<N> kernel (main.cpp's) for sm_90 and builds each
      cold (a fresh compile cache, `kiln build -j J`), timing it:
        small   10 instantiations
        whole   --kernels instantiations, kernels_per_image = 0 (one image, as before parts)
        partsB  the same, kernels_per_image = B for each B of --bounds (default 16, Kiln's default)
      then writes build.json beside the packages.

  run.py launch --bench DIR/kiln_first_launch --work DIR [--rounds 9]
      on the GPU: the first launch of one kernel from each package (kiln_first_launch: open,
      get_kernel + launch + synchronize, destroy; median of --rounds), printed with build.json's
      figures as one Markdown table.

Standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = """template <int N> __global__ void tile(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  for (int j = 0; j < (N % 7) + 1; ++j) v = v * 1.0001f + N;
  out[i] = v;
}
"""


def write_project(root, kernels, bound):
    root.mkdir(parents=True, exist_ok=True)
    (root / "tile.cu").write_text(SOURCE)
    names = ", ".join(f'"tile<{i}>"' for i in range(kernels))
    bound_line = "" if bound is None else f"kernels_per_image = {bound}\n"
    (root / "kiln.toml").write_text(f'name = "{root.name}"\ntargets = ["sm_90"]\n{bound_line}\n'
                                    f'[[source]]\npath = "tile.cu"\ninstantiate = [{names}]\n')


def build(args):
    work = Path(args.work).resolve()
    kiln = str(Path(args.kiln).resolve())
    if work.exists():
        shutil.rmtree(work)
    cases = [("small", 10, None), ("whole", args.kernels, 0)]
    cases += [(f"parts{bound}", args.kernels, bound) for bound in args.bounds]
    figures = {"kernels": args.kernels, "jobs": args.jobs, "cases": {}}
    for name, kernels, bound in cases:
        project = work / name
        write_project(project, kernels, bound)
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, KILN_CACHE_DIR=cache)
            start = time.monotonic()
            p = subprocess.run([kiln, "build", "-j", str(args.jobs), "-o", str(work / f"{name}.kiln")],
                               cwd=project, env=env, capture_output=True, text=True)
            seconds = time.monotonic() - start
        if p.returncode != 0:
            sys.exit(f"run.py: building {name} failed:\n{p.stderr}")
        report = json.loads(subprocess.run([kiln, "inspect", "--json", str(work / f"{name}.kiln")],
                                           capture_output=True, text=True, check=True).stdout)
        sizes = [image["size"] for unit in report["units"] for image in unit["images"]]
        figures["cases"][name] = {"instantiations": kernels, "seconds": round(seconds, 2),
                                  "images": len(sizes), "largest_image": max(sizes),
                                  "package_bytes": (work / f"{name}.kiln").stat().st_size}
        print(f"{name}: {seconds:.1f} s, {len(sizes)} images, largest {max(sizes)} bytes", file=sys.stderr)
    (work / "build.json").write_text(json.dumps(figures, indent=1) + "\n")


def launch(args):
    work = Path(args.work)
    figures = json.loads((work / "build.json").read_text())
    middle = f"tile<{figures['kernels'] // 2}>"
    # Cases whose package is not here are left out (a GPU machine may get them in several trips).
    kernels = {name: "tile<5>" if name == "small" else middle for name in figures["cases"]
               if (work / f"{name}.kiln").exists()}
    argv = [args.bench, "--rounds", str(args.rounds)]
    for name, kernel in kernels.items():
        argv += ["--package", str(work / f"{name}.kiln"), "--kernel", kernel]
    out = subprocess.run(argv, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"run.py: {' '.join(argv)} failed:\n{out.stderr}")
    launched = {}
    for line in out.stdout.splitlines():
        package, kernel, median, fastest = line.rsplit(" ", 3)
        launched[Path(package).stem] = (kernel, float(median), float(fastest))
    small_ms = launched["small"][1]
    whole_s = figures["cases"]["whole"]["seconds"]
    print(f"{figures['kernels']} instantiations of tile<N>, sm_90; builds cold with -j {figures['jobs']} on the build "
          f"machine; first launch on this GPU, median of {args.rounds} rounds\n")
    print("| package | instantiations | images | largest image (bytes) | build s | build vs whole | kernel | "
          "first launch ms (median) | fastest ms | vs small |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|")
    for name in launched:
        c = figures["cases"][name]
        kernel, median, fastest = launched[name]
        versus = "" if name == "small" else f"{c['seconds'] / whole_s:.2f}x"
        print(f"| {name} | {c['instantiations']} | {c['images']} | {c['largest_image']:,} | {c['seconds']:.1f} | "
              f"{versus} | `{kernel}` | {median:.3f} | {fastest:.3f} | {median / small_ms:.2f}x |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = parser.add_subparsers(dest="step", required=True)
    b = steps.add_parser("build")
    b.add_argument("--kiln", default="build/bin/kiln")
    b.add_argument("--work", default="/tmp/kiln-parts")
    b.add_argument("--kernels", type=int, default=10000)
    b.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    b.add_argument("--bounds", type=lambda v: [int(x) for x in v.split(",")], default=[16],
                   help="kernels_per_image of each parts case (default 16, Kiln's default)")
    l = steps.add_parser("launch")
    l.add_argument("--bench", required=True)
    l.add_argument("--work", default="/tmp/kiln-parts")
    l.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    build(args) if args.step == "build" else launch(args)


if __name__ == "__main__":
    main()
