"""wheel_cuda: `kiln build` on a machine with no CUDA toolkit, with CUDA from NVIDIA's PyPI wheels
(docs/python.md, "CUDA from NVIDIA's wheels").

    check_cuda_wheels.py --wheelhouse DIR --build DIR --cmake FILE --kiln FILE --toolkit DIR --example DIR
                         --host-unit DIR --work DIR

Every kiln run sees no system toolkit: an empty tmpfs is mounted over --toolkit in a mount namespace
of the run's own (unshare; a machine that refuses it fails the test, it never passes), and CUDA_PATH,
CUDA_HOME and CUDA directories on PATH are dropped. Each venv's builds have a fresh cache: they compile.

  - a venv with no wheels: `kiln build` (--kiln, the build tree's, beside no wheels) with VIRTUAL_ENV
    set to it fails with "no CUDA toolkit found", naming the wheels' places it looked at;
  - the same venv with NVRTC, nvJitLink and the runtime's headers only: the build finds them through
    $VIRTUAL_ENV; the unit with host code fails saying which wheels nvcc needs, examples/saxpy's CUB
    kernel says so and names nvidia-cuda-cccl too;
  - a venv with Kiln's own wheel and its `cuda` extra, `pip install 'kiln-cuda[cuda]'` offline from
    --kiln-dist and --wheelhouse (scripts/install-deps.sh fills it): the seven wheels and nothing else;
    its `kiln` command, run without VIRTUAL_ENV, finds them beside itself: examples/saxpy builds for
    sm_90 with the wheels' NVRTC (block_sum includes CUB: nvidia-cuda-cccl's headers), inspect lists its
    kernels and verify passes; `kiln check --list-architectures` (what kiln_add_cache's ARCHITECTURES
    all asks) lists NVRTC's; the unit with host code builds with the wheels' nvcc; and the binding
    compiles a kernel at run time (kiln.compile_program, on the test driver's sm_90 device:
    --fake-libcuda) with the wheels' NVRTC, which the binding registers and whose builtins libkiln_jit
    opens beside it.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from wheel_support import fail, make_venv, run, show

RELEASE = "==13.0.*"
# What the full venv installs: every piece kiln build may use (wheel_toolkit.hpp says which is which).
ALL_WHEELS = ("nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-cuda-cccl", "nvidia-cuda-nvcc", "nvidia-nvvm",
              "nvidia-cuda-crt", "nvidia-cuda-runtime")
# A toolkit for NVRTC's units only: no nvcc (nor nvvm and crt, which only nvcc uses), no CCCL.
NVRTC_WHEELS = ("nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-cuda-runtime")


def install_wheels(python, wheelhouse, names):
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--no-deps",
         "--no-cache-dir", "--disable-pip-version-check", "--find-links", str(wheelhouse),
         *[name + RELEASE for name in names]], "pip install of NVIDIA's wheels")


def install_kiln_with_cuda(python, kiln_dist, wheelhouse):
    """Kiln's wheel with its `cuda` extra, which brings NVIDIA's wheels: what a user without a toolkit
    installs. Returns the venv's `kiln` command (the console script, which runs kiln/_prefix/bin/kiln)."""
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--no-cache-dir",
         "--disable-pip-version-check", "--find-links", str(kiln_dist), "--find-links", str(wheelhouse),
         "kiln-cuda[cuda]"], "pip install 'kiln-cuda[cuda]'")
    return python.parent / "kiln"


# Run in the venv with the toolkit hidden: a run-time compile through the binding, on the test driver's
# device (sm_90). The binding registers the wheels' lib/ with libkiln, whose compile library loads
# NVRTC from there, and NVRTC's builtins beside it.
RUN_TIME_COMPILE = """
import kiln
package = kiln.compile_program("__global__ void twice(float* x) { x[threadIdx.x] *= 2; }", kernels=["twice"])
stats = kiln.cache_stats()
assert stats["compiles"] == 1 and stats["compile_failures"] == 0, stats
print("compiled at run time with the wheels' NVRTC:", stats)
"""


def hidden(toolkit, command):
    """`command` with the system toolkit hidden: an empty tmpfs over its directory, in a mount
    namespace of the command's own (the toolkit stays where it was for everything else)."""
    script = 'mount -t tmpfs kiln-no-cuda "$1" && test ! -e "$1/include/cuda.h" && shift && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", str(toolkit),
            *map(str, command)]


def environment(work, virtual_env=None):
    """The test's environment without CUDA: no CUDA_PATH, CUDA_HOME, LD_LIBRARY_PATH or KILN_*, no
    CUDA directory on PATH; a fresh cache; VIRTUAL_ENV only where given."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUDA_PATH", "CUDA_HOME", "LD_LIBRARY_PATH", "VIRTUAL_ENV") and not k.startswith("KILN_")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if "cuda" not in p.lower())
    # A cache per venv, in the fresh work directory: each venv's builds compile (keys do not say
    # which root's NVRTC compiled, only its version, so one venv's entries would serve the other).
    env["KILN_CACHE_DIR"] = str(work / "cache" / (virtual_env.name if virtual_env else "beside-kiln"))
    if virtual_env:
        env["VIRTUAL_ENV"] = str(virtual_env)
    return env


def kiln(toolkit, work, command, what, *, expect=0, virtual_env=None):
    """Runs kiln with the toolkit hidden; returns stdout and stderr apart."""
    result = subprocess.run(hidden(toolkit, command), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=environment(work, virtual_env))
    show(what, result.stdout + result.stderr)
    if result.returncode != expect:
        fail(f"{what} exited {result.returncode}, expected {expect}")
    return result.stdout, result.stderr


def expect_in(text, pieces, what):
    for piece in pieces:
        if piece not in text:
            fail(f"{what} does not say '{piece}'")


def check_unshare(toolkit):
    status = subprocess.run(hidden(toolkit, ["true"]), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if status.returncode != 0:
        fail("cannot hide the system CUDA toolkit (unshare --mount and mount -t tmpfs need root or "
             f"CAP_SYS_ADMIN), so this test cannot show that kiln builds without it:\n{status.stdout}")


def check_without_nvcc(args, build_kiln):
    """No wheels, then NVRTC's wheels only, in one venv found through $VIRTUAL_ENV."""
    python, site = make_venv(args.work / "nvrtc-venv", with_pip=False)
    venv = python.parent.parent
    build = [build_kiln, "build", args.host_unit / "kiln.toml", "--targets", "sm_90", "-o", args.work / "host.kiln"]
    _, err = kiln(args.toolkit, args.work, build, "kiln build with no wheels", expect=4, virtual_env=venv)
    expect_in(err, ["no CUDA toolkit found", f"{site}/nvidia/cu13 [$VIRTUAL_ENV]", "/nvidia/cu13 [beside kiln]",
                    "pip install nvidia-cuda-nvrtc==13.0.* nvidia-nvjitlink==13.0.*"], "kiln build with no wheels")
    install_wheels(python, args.wheelhouse, NVRTC_WHEELS)
    _, err = kiln(args.toolkit, args.work, build, "kiln build of host code without nvcc's wheels", expect=1,
                  virtual_env=venv)
    needs_nvcc = ["this unit needs nvcc (it has host code, or NVRTC cannot compile it)",
                  f"NVIDIA's wheels at {site}/nvidia/cu13", "pip install nvidia-cuda-nvcc==13.0.* nvidia-nvvm==13.0.* "
                  "nvidia-cuda-crt==13.0.* nvidia-cuda-runtime==13.0.*"]
    expect_in(err, needs_nvcc, "kiln build of host code without nvcc")
    if "nvidia-cuda-cccl" in err:
        fail("kiln build of host code that includes no CCCL header names nvidia-cuda-cccl")
    # block_sum includes CUB: NVRTC cannot find it, nor is there an nvcc to try; both wheels are named.
    _, err = kiln(args.toolkit, args.work, [build_kiln, "build", args.example / "kiln.toml", "--targets", "sm_90",
                                            "-o", args.work / "saxpy-without-cccl.kiln"],
                  "kiln build of a CUB kernel without CCCL's wheel", expect=1, virtual_env=venv)
    expect_in(err, ['cannot open source file "cub/block/block_reduce.cuh"', *needs_nvcc,
                    "pip install nvidia-cuda-cccl==13.0.*"], "kiln build of a CUB kernel without CCCL")


def check_all_wheels(args):
    """The seven wheels and Kiln in one venv, found beside kiln (no VIRTUAL_ENV)."""
    python, site = make_venv(args.work / "venv", with_pip=False)
    kiln_exe = install_kiln_with_cuda(python, args.kiln_dist, args.wheelhouse)
    installed = sorted(p.name.split("-")[0] for p in site.glob("*.dist-info"))
    expected = sorted(n.replace("-", "_") for n in ("kiln-cuda", *ALL_WHEELS))
    if installed != expected:
        fail(f"'kiln-cuda[cuda]' installed {installed}, expected {expected}")
    saxpy = args.work / "saxpy.kiln"
    out, _ = kiln(args.toolkit, args.work,
                  [kiln_exe, "build", args.example / "kiln.toml", "--targets", "sm_90", "-o", saxpy, "--json"],
                  "kiln build of examples/saxpy")
    report = json.loads(out)
    if report["targets"] != ["sm_90"] or any(u["images"][0]["cache"] != "miss" for u in report["units"]):
        fail("the saxpy build did not compile every unit for sm_90 afresh")
    # The scan read every source: clang's CUDA wrapper found its cuRAND header (a stand-in: no wheel has it).
    if report["warnings"]:
        fail(f"the saxpy build warned: {report['warnings']}")
    # Not nvcc's fallback: the wheels' NVRTC compiled them (its builtins found beside it).
    compilers = {u["source"]: u.get("compiler") for u in report["units"]}
    if compilers != {"kernels/saxpy.cu": "nvrtc", "kernels/block_sum.cu": "nvrtc"}:
        fail(f"saxpy's units were not compiled by the wheels' NVRTC: {compilers}")
    out, _ = kiln(args.toolkit, args.work, [kiln_exe, "inspect", saxpy], "kiln inspect saxpy.kiln")
    expect_in(out, ["saxpy", "scale<float>", "scale<double>", "block_sum<float, 128>", "block_sum<double, 256>"],
              "kiln inspect of saxpy.kiln")
    kiln(args.toolkit, args.work, [kiln_exe, "verify", saxpy], "kiln verify saxpy.kiln")

    # What kiln_add_cache(ARCHITECTURES all) asks: the wheels' NVRTC's architectures.
    out, _ = kiln(args.toolkit, args.work, [kiln_exe, "check", "--list-architectures"], "kiln check --list-architectures")
    if "90" not in out.split():
        fail("kiln check --list-architectures does not list the wheels' NVRTC's architectures")

    host = args.work / "host.kiln"
    out, _ = kiln(args.toolkit, args.work,
                  [kiln_exe, "build", args.host_unit / "kiln.toml", "--targets", "sm_90", "-o", host, "--json"],
                  "kiln build of the unit with host code")
    compilers = {u["source"]: u.get("compiler") for u in json.loads(out)["units"]}
    if compilers != {"fill.cu": "nvcc"}:
        fail(f"the unit with host code was not compiled by nvcc: {compilers}")
    out, _ = kiln(args.toolkit, args.work, [kiln_exe, "inspect", host], "kiln inspect host.kiln")
    expect_in(out, ["fill"], "kiln inspect of host.kiln")

    # The test driver stands in for libcuda; KILN_ variables are dropped by environment(), so it is
    # named in the command the hidden toolkit runs.
    out, _ = kiln(args.toolkit, args.work, ["env", f"KILN_LIBCUDA={args.fake_libcuda}", python, "-c", RUN_TIME_COMPILE],
                  "a run-time compile through the binding")
    expect_in(out, ["compiled at run time with the wheels' NVRTC"], "the run-time compile")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheelhouse", type=Path, required=True, help="NVIDIA's wheels (scripts/install-deps.sh)")
    parser.add_argument("--kiln-dist", type=Path, required=True, help="Kiln's wheel (kiln_wheel_build)")
    parser.add_argument("--fake-libcuda", type=Path, required=True, help="the tests' stand-in driver")
    parser.add_argument("--kiln", type=Path, required=True, help="the build tree's kiln, beside no wheels")
    parser.add_argument("--toolkit", type=Path, required=True, help="the system toolkit, to hide")
    parser.add_argument("--example", type=Path, required=True)
    parser.add_argument("--host-unit", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    args.toolkit = args.toolkit.resolve()   # the directory, not a link to it: a mount covers what it is on
    missing = [n for n in ALL_WHEELS if not list(args.wheelhouse.glob(n.replace("-", "_") + "-13.0.*.whl"))]
    if missing:
        fail(f"{args.wheelhouse} lacks NVIDIA's wheels {' '.join(missing)}: run scripts/install-deps.sh")
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    check_unshare(args.toolkit)
    check_without_nvcc(args, args.kiln)
    check_all_wheels(args)


if __name__ == "__main__":
    main()
