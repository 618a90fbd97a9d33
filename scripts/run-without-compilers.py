#!/usr/bin/env python3
"""Runs a Python module (like `python -m`) with every CUDA compiler out of reach, then proves none ran.

    run-without-compilers.py MODULE [ARGS...]

Before the module runs, an audit hook refuses (raises PermissionError) any attempt to
  - load NVRTC, nvJitLink, nvPTXCompiler or the CUDA runtime compiler pieces through ctypes, and
  - start any process (subprocess, os.exec*, os.posix_spawn, os.system): no nvcc, no host compiler.
CUDA_PATH / CUDA_HOME are pointed at a directory that does not exist, and the toolkit is dropped from
PATH, so libraries that search for a toolkit find none. After the module returns, /proc/self/maps
must hold no NVRTC or nvJitLink library: a compile cannot happen without one of them mapped, so an
empty result shows that nothing was compiled, whichever way a library might have tried to load it.

Exit status: the module's, or 3 if a compiler library was found mapped afterwards.
"""
import os
import re
import runpy
import sys

_COMPILER_LIBRARY = re.compile(r"lib(nvrtc|nvJitLink|nvptxcompiler)", re.IGNORECASE)


def _refuse_compilers(event, args):
    if event == "ctypes.dlopen" and args and args[0] and _COMPILER_LIBRARY.search(str(args[0])):
        raise PermissionError(f"run-without-compilers: refused to load {args[0]}")
    if event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system", "os.fork"):
        raise PermissionError(f"run-without-compilers: refused to start a process ({event}: {args!r:.200})")


def _compiler_libraries_mapped():
    with open("/proc/self/maps", encoding="utf-8") as maps:
        return sorted({line.split()[-1] for line in maps
                       if len(line.split()) >= 6 and _COMPILER_LIBRARY.search(line.split()[-1])})


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    module = sys.argv[1]
    missing = "/nonexistent-cuda-toolkit"
    os.environ["CUDA_PATH"] = missing
    os.environ["CUDA_HOME"] = missing
    os.environ["PATH"] = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                                         if "cuda" not in p.lower())
    sys.addaudithook(_refuse_compilers)
    sys.argv = sys.argv[1:]
    status = 0
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exit_request:
        code = exit_request.code
        if code is None or isinstance(code, int):
            status = code or 0
        else:  # sys.exit("message"): printed and status 1, as Python does for an uncaught one
            print(code, file=sys.stderr)
            status = 1
    mapped = _compiler_libraries_mapped()
    if mapped:
        print(f"run-without-compilers: FAIL: compiler libraries were loaded: {', '.join(mapped)}", file=sys.stderr)
        return 3
    print(f"run-without-compilers: {module}: no NVRTC/nvJitLink mapped, no process started, exit {status}")
    return status


if __name__ == "__main__":
    sys.exit(main())
