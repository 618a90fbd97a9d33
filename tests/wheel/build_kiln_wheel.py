"""kiln_wheel_build: Kiln's own wheel, kiln-cuda, built by scripts/build-kiln-wheel.py from this build
tree (not rebuilt: CTest runs inside it), at zip level 1 (the documented default, 6, writes a wheel
a tenth smaller, 104 MB against 115, in about 6 s more), then its contents checked:

    build_kiln_wheel.py --build DIR --work DIR --dist DIR --version X.Y.Z

  - one file, kiln_cuda-<version>-py3-none-manylinux_2_36_x86_64.whl, in --dist;
  - the binding at kiln/ (with installed-library-dir naming _prefix/lib), the command kiln/_command.py,
    the prefix kiln/_prefix/ (an importable package) with bin/kiln, the libraries, the clang parser and
    clang's CUDA wrapper beside it, the CMake package, the headers and the documentation;
  - the entry points: the `kiln` console script and `cmake.root` Kiln = kiln._prefix;
  - LLVM and clang grafted by auditwheel into kiln_cuda.libs/;
  - no symbolic link.
Prints the wheel's size, compressed and unpacked. First, the script's errors (each exits 1 with a
message naming what failed): no build tree; a directory that is no configured tree; an interpreter
without wheel and auditwheel.
"""
import argparse
import re
import shutil
import stat
import sys
import zipfile
from pathlib import Path

from wheel_support import fail, make_venv, run, run_status, show

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build-kiln-wheel.py"
REQUIRED = ["kiln/__init__.py", "kiln/_library.py", "kiln/_native.abi3.so", "kiln/_command.py",
            "kiln/_prefix/__init__.py",
            "kiln/_prefix/bin/kiln", "kiln/_prefix/lib/libkiln.so.0", "kiln/_prefix/lib/libkiln_jit.so.0",
            "kiln/_prefix/lib/kiln/libkiln_scan_parser.so",
            "kiln/_prefix/lib/kiln/clang/include/__clang_cuda_runtime_wrapper.h",
            "kiln/_prefix/lib/cmake/Kiln/KilnConfig.cmake", "kiln/_prefix/include/kiln/kiln.h",
            "kiln/_prefix/share/kiln/python/kiln/__init__.py", "kiln/_prefix/share/doc/kiln/python.md"]
ENTRY_POINTS = {"[console_scripts]", "kiln = kiln._command:main", "[cmake.root]", "Kiln = kiln._prefix"}
GRAFTED = (r"kiln_cuda\.libs/libLLVM-[0-9a-f]+\.so\.19\.1", r"kiln_cuda\.libs/libclang-cpp-[0-9a-f]+\.so\.19\.1")


def check_errors(work):
    """The script's refusals, before any work: each exits 1 naming the cause."""
    shutil.rmtree(work, ignore_errors=True)
    (work / "not-a-tree").mkdir(parents=True)
    bare_python, _ = make_venv(work / "bare-venv", with_pip=False)  # no wheel, no auditwheel
    cases = [([sys.executable, str(SCRIPT), "--build", str(work / "no-such-tree")], "no build tree at "),
             ([sys.executable, str(SCRIPT), "--build", str(work / "not-a-tree")],
              "no configured Kiln build tree at "),
             ([str(bare_python), str(SCRIPT), "--build", str(work / "not-a-tree")], "missing wheel (in ")]
    for command, expected in cases:
        status, output = run_status(command)
        if status != 1 or f"build-kiln-wheel: error: {expected}" not in output:
            fail(f"{' '.join(command)} exited {status}, expected 1 and '{expected}':\n{output}")
    if "auditwheel (in " not in output:
        fail(f"an interpreter without auditwheel: the message does not name it:\n{output}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--dist", type=Path, required=True)
    parser.add_argument("--version", required=True)
    args = parser.parse_args()

    check_errors(args.work / "errors")
    shutil.rmtree(args.dist, ignore_errors=True)
    show("build-kiln-wheel.py", run([sys.executable, str(SCRIPT), "--build", str(args.build), "--no-build",
                                     "--work", str(args.work), "--out", str(args.dist), "--compression-level", "1"],
                                    "scripts/build-kiln-wheel.py"))
    wheels = sorted(p.name for p in args.dist.iterdir())
    expected = f"kiln_cuda-{args.version}-py3-none-manylinux_2_36_x86_64.whl"
    if wheels != [expected]:
        fail(f"expected {expected} alone in {args.dist}, found {wheels}")
    wheel = args.dist / expected
    with zipfile.ZipFile(wheel) as archive:
        infos = archive.infolist()
        names = {info.filename for info in infos}
        missing = [name for name in REQUIRED if name not in names]
        if missing:
            fail(f"the wheel lacks {missing}")
        links = [i.filename for i in infos if stat.S_ISLNK(i.external_attr >> 16)]
        if links:
            fail(f"the wheel holds symbolic links: {links}")
        if archive.read("kiln/installed-library-dir").decode().strip() != "_prefix/lib":
            fail("kiln/installed-library-dir does not name _prefix/lib")
        entry_points = archive.read(f"kiln_cuda-{args.version}.dist-info/entry_points.txt").decode()
        if {line.strip() for line in entry_points.splitlines() if line.strip()} != ENTRY_POINTS:
            fail(f"entry_points.txt is not the console script and cmake.root entry point:\n{entry_points}")
        for pattern in GRAFTED:
            if not any(re.fullmatch(pattern, name) for name in names):
                fail(f"auditwheel grafted nothing matching {pattern}: "
                     f"{sorted(n for n in names if n.startswith('kiln_cuda.libs/'))}")
        unpacked = sum(info.file_size for info in infos)
    print(f"{wheel.name}: {wheel.stat().st_size} bytes, {unpacked} unpacked, {len(infos)} files")


if __name__ == "__main__":
    main()
