"""Runs the Python binding's GPU tests (test_gpu_*.py) with pytest, in this process, after checking
that there is a GPU, and then checks what the whole run left behind:

  - exit 125 (ctest: skipped) only when there is no driver or no GPU; any other driver failure is
    a failure;
  - HOME is a fresh empty directory for the run and must hold no file after it (nothing written to
    the home directory: no kernel cache entry, no temporary file; CuPy's import makes an empty
    ~/.cupy/kernel_cache, which is reported, not failed);
  - no NVRTC or nvJitLink was loaded (/proc/self/maps): nothing was compiled.

Then test_compile_gpu.py, which compiles at run time on purpose (issue 14), runs in a process of its
own with KILN_CACHE_DIR in a fresh directory, so the checks above still mean what they say.

    python run_gpu_tests.py [pytest options]     (ctest: python_binding_gpu)

Environment: as for the other tests (KILN_LIBRARY, PYTHONPATH, KILN_PYTHON_TEST_PACKAGES);
KILN_LIBCUDA, if set, is the driver library to use.
"""

import ctypes
import glob
import os
import shutil
import subprocess
import sys
import tempfile

SKIPPED = 125
# CUresult values that mean "no usable GPU here", not "something is broken".
NO_GPU_RESULTS = {100: "CUDA_ERROR_NO_DEVICE", 34: "CUDA_ERROR_STUB_LIBRARY", 35: "CUDA_ERROR_INSUFFICIENT_DRIVER"}
COMPILER_LIBRARIES = ("libnvrtc", "libnvJitLink")


def gpu_count():
    """The number of GPUs; exits 125 saying why when there is no driver or no GPU."""
    name = os.environ.get("KILN_LIBCUDA") or "libcuda.so.1"
    try:
        cuda = ctypes.CDLL(name)
    except OSError as error:
        print("run_gpu_tests: no driver: %s" % error)
        sys.exit(SKIPPED)
    result = cuda.cuInit(0)
    if result in NO_GPU_RESULTS:
        print("run_gpu_tests: no GPU: cuInit gives %s" % NO_GPU_RESULTS[result])
        sys.exit(SKIPPED)
    if result != 0:
        print("run_gpu_tests: the driver %s is present but cuInit failed with CUresult %d" % (name, result))
        sys.exit(1)
    count = ctypes.c_int()
    result = cuda.cuDeviceGetCount(ctypes.byref(count))
    if result != 0:
        print("run_gpu_tests: cuDeviceGetCount failed with CUresult %d" % result)
        sys.exit(1)
    if count.value == 0:
        print("run_gpu_tests: no GPU: the driver reports none")
        sys.exit(SKIPPED)
    return count.value


def compiler_libraries():
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "/" in line}
    return sorted(path for path in paths if os.path.basename(path).startswith(COMPILER_LIBRARIES))


def main():
    print("run_gpu_tests: %d GPU(s)" % gpu_count())
    here = os.path.dirname(os.path.abspath(__file__))
    home = tempfile.mkdtemp(prefix="kiln-gpu-home-")
    os.environ["HOME"] = home  # before pytest imports CuPy or cuda.core
    import pytest
    status = int(pytest.main(sys.argv[1:] + sorted(glob.glob(os.path.join(here, "test_gpu_*.py")))))
    problems = []
    loaded = compiler_libraries()
    if loaded:
        problems.append("a compiler library was loaded: %s" % ", ".join(loaded))
    written = sorted(os.path.relpath(os.path.join(d, f), home) for d, _, files in os.walk(home) for f in files)
    if written:
        problems.append("files were written to HOME (%s): %s" % (home, ", ".join(written)))
    # CuPy (14) creates an empty ~/.cupy/kernel_cache when imported, before Kiln does anything; a
    # compile would put a file in it, which the check above catches.
    directories = sorted(os.path.relpath(d, home) for d, _, _ in os.walk(home) if d != home)
    if directories:
        print("run_gpu_tests: empty directories in HOME (made by the libraries imported): %s" % ", ".join(directories))
    shutil.rmtree(home, ignore_errors=True)
    for problem in problems:
        print("run_gpu_tests: FAILED: " + problem)
    if not problems:
        print("run_gpu_tests: no NVRTC or nvJitLink loaded; no file written to HOME")
    compile_status = run_compile_tests(here, sys.argv[1:])
    if status == 0 and not problems:
        status = compile_status
    return status if status != 0 else (1 if problems else 0)


def run_compile_tests(here, pytest_options):
    """test_compile_gpu.py in a fresh interpreter, its cache in a directory of its own."""
    cache = tempfile.mkdtemp(prefix="kiln-gpu-compile-cache-")
    environment = dict(os.environ, KILN_CACHE_DIR=cache)
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", *pytest_options,
                               os.path.join(here, "test_compile_gpu.py")], env=environment)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
