"""windows.consumer: a Windows program built against an installed Windows Kiln, the way a Windows
user's CMake project uses it, run under Wine on a package built on Linux.

    check_consumer.py --windows-tree DIR --work DIR --package FILE --kiln KILN --toolchain FILE

`cmake --install` of the Windows tree into a prefix (bin/kiln.dll, lib/libkiln.dll.a, lib/kiln.lib,
the headers and lib/cmake/Kiln); tests/windows/consumer configured with the MinGW toolchain and
Kiln_DIR (find_package(Kiln COMPONENTS runtime) -> Kiln::runtime), built, kiln.dll put beside the
program as an installer would; the program lists the package through the C++ interface, and the
list must be the one `kiln inspect --json` gives on Linux.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(command, **kwargs):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit("windows.consumer: %s exited %d\n%s%s" % (" ".join(map(str, command)), done.returncode,
                                                           done.stdout, done.stderr))
    return done.stdout


def main():
    parser = argparse.ArgumentParser()
    for name in ("--windows-tree", "--work", "--package", "--kiln", "--toolchain"):
        parser.add_argument(name, type=Path, required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    prefix, build = args.work / "prefix", args.work / "build"
    run(["cmake", "--install", args.windows_tree, "--prefix", prefix])
    for installed in ("bin/kiln.dll", "lib/libkiln.dll.a", "lib/kiln.lib", "include/kiln/kiln.hpp",
                      "lib/cmake/Kiln/KilnConfig.cmake"):
        if not (prefix / installed).is_file():
            sys.exit("windows.consumer: the install has no %s" % installed)
    run(["cmake", "-S", HERE / "consumer", "-B", build, "-G", "Ninja", "-DCMAKE_TOOLCHAIN_FILE=%s" % args.toolchain,
         "-DKiln_DIR=%s" % (prefix / "lib" / "cmake" / "Kiln")])
    run(["cmake", "--build", build])
    shutil.copy(prefix / "bin" / "kiln.dll", build / "kiln.dll")
    listed = run([HERE / "run_under_wine.sh", "./probe.exe", "Z:" + str(args.package)], cwd=build).splitlines()
    expected = json.loads(run([args.kiln, "inspect", args.package, "--json"]))
    names = [kernel["name"] for kernel in expected["kernels"]]
    got = [line[len("kernel "):] for line in listed if line.startswith("kernel ")]
    if not listed or not listed[0].startswith("version "):
        sys.exit("windows.consumer: the program printed no version:\n" + "\n".join(listed))
    if got != names:
        sys.exit("windows.consumer: kiln.dll lists %s; kiln inspect on Linux lists %s" % (got, names))
    print("windows.consumer: %s, %d kernels listed through kiln.dll as on Linux" % (listed[0], len(got)))


if __name__ == "__main__":
    main()
