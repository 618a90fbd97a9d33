#!/usr/bin/env python3
"""A wheel built twice by pip (issue 31): examples/python-wheel with eight more device-only sources
that include standard headers (<cmath>, <limits>: NVRTC and Jitify code), built with
`pip wheel --no-build-isolation` twice, each time in pip's own temporary build directory, with one
Kiln cache. The second build should cost what a cache hit costs, wherever the tree lies.

  python3 bench/build_speed/wheel_twice.py --prefix build/tests/consumer/prefix [--architectures 80-real;90]

--prefix is an installed Kiln (the consumer_install test makes one). Prints one line of figures.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent

SOURCE = """#include <cmath>
#include <limits>
// Written for NVRTC with JIT-safe headers: the standard library called from device code.
__global__ void clamp_{n}(float* x, int count) {{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const float v = x[i] * {n}.0f;
  x[i] = std::isfinite(v) ? std::fmin(v, std::numeric_limits<float>::max()) : std::numeric_limits<float>::epsilon();
}}
"""


def cache_counters(cache):
    """The Kiln cache's counters (its stats file: "kiln-cache-stats 1", then "name value" lines)."""
    stats = cache / "stats"
    if not stats.exists():
        return {}
    lines = stats.read_text().splitlines()[1:]
    return {name: int(value) for name, value in (line.split() for line in lines if len(line.split()) == 2)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prefix", type=Path, required=True)
    parser.add_argument("--architectures", default="80-real;90")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kiln-wheel-twice-"))
    project = work / "project"
    shutil.copytree(REPO / "examples/python-wheel", project, ignore=shutil.ignore_patterns("__pycache__"))
    names = []
    for n in range(8):
        (project / f"kernels/std_{n}.cu").write_text(SOURCE.format(n=n))
        names.append(f"kernels/std_{n}.cu")
    cmake = project / "CMakeLists.txt"
    cmake.write_text(cmake.read_text().replace("kernels/block_sum.cu", "kernels/block_sum.cu " + " ".join(names)))
    env = dict(os.environ, CMAKE_PREFIX_PATH=str(args.prefix.resolve()), KILN_CACHE_DIR=str(work / "cache"))
    times = []
    counts = []
    for turn in range(2):
        start = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-w",
                            str(work / f"dist{turn}"), f"--config-settings=cmake.define.KILN_EXAMPLE_ARCHITECTURES={args.architectures}",
                            str(project)], env=env, capture_output=True, text=True)
        times.append(time.monotonic() - start)
        if p.returncode != 0:
            print(p.stdout[-3000:], p.stderr[-3000:])
            sys.exit(f"pip wheel failed (turn {turn + 1})")
        counts.append(cache_counters(work / "cache"))
    wheels = [next((work / f"dist{t}").glob("*.whl")) for t in range(2)]
    packages = [zipfile.ZipFile(w).read("kiln_example/kernels.kiln") for w in wheels]
    print(f"wheel with 11 sources ({len(names)} with standard headers), architectures {args.architectures}: "
          f"first build {times[0]:.1f} s, second {times[1]:.1f} s ({times[0] / times[1]:.1f}x); "
          f"kernels.kiln {'identical' if packages[0] == packages[1] else 'differs'} in bytes; the second build's "
          f"compiles: {counts[1].get('compile.hits', 0) - counts[0].get('compile.hits', 0)} cached, "
          f"{counts[1].get('compile.misses', 0) - counts[0].get('compile.misses', 0)} compiled (the rest of its time is "
          f"pip, CMake and the extension's own build)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
