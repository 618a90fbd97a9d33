"""wheel_offline_install: the example wheel installed offline into a fresh virtual environment, then
run from a read-only site-packages with an empty home directory.

    check_offline.py --wheel FILE --work DIR

  - `pip install --no-index --no-deps` installs it (nothing fetched, nothing else needed);
  - the venv is made read-only (chmod -R a-w; as root that stops nothing, so every file and
    directory of the venv is also compared before and after: nothing may be added or changed);
  - with HOME, TMPDIR and the working directory fresh and empty, and no KILN_*, LD_LIBRARY_PATH or
    PYTHONPATH in the environment:
      * importing and listing loads the wheel's own libkiln.so.0 and not libcuda;
      * `python -m kiln_example` lists saxpy and the kernels only the Python code asks for; without a
        GPU it says "no GPU: <why>" and exits 2 (0 with --if-gpu); with one, it lists the image each
        kernel loads;
      * asking for a kernel raises the binding's NoDriverError/NoDeviceError with the runtime's
        message where there is no GPU, and loads it where there is;
  - afterwards HOME, TMPDIR and the working directory are still empty (with a GPU, but for the
    empty ~/.nv/ComputeCache the driver's cuInit makes in every CUDA process).
"""
import argparse
import os
import shutil
import stat
from pathlib import Path

from wheel_support import fail, make_venv, pip_install, run, run_status, show, snapshot

# Run inside the installed package's interpreter: which libraries the process maps, what a kernel
# request does. Prints lines the test matches.
PROBE = r"""
import os
import kiln_example
pkg = kiln_example.package()
print("binding", kiln_example.kiln.__file__)
print("kernels", "|".join(pkg.kernel_names))
# Matched by file name: a directory above the venv may have any name.
mapped = sorted({line.split()[-1] for line in open("/proc/self/maps") if "/" in line})
print("libkiln", " ".join(p for p in mapped if os.path.basename(p).startswith("libkiln")))
print("libcuda", " ".join(p for p in mapped if os.path.basename(p).startswith("libcuda")) or "-")
try:
    pkg.kernel("block_sum<float, 256>")
except kiln_example.kiln.KilnError as error:
    print(f"raised {type(error).__name__} {error.status_name}: {error}")
else:
    print("loaded block_sum<float, 256>")
"""


def set_writable(root, writable):
    for directory, subdirs, files in os.walk(root):
        for path in [directory] + [os.path.join(directory, f) for f in files]:
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            bits = stat.S_IWUSR if writable else 0
            os.chmod(path, (mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) | bits)


def check_probe(output, site):
    show("probe", output)
    lines = dict(line.split(" ", 1) for line in output.splitlines() if " " in line)
    own = site / "kiln_example" / "_kiln"
    if not lines.get("binding", "").startswith(str(own)):
        fail(f"the binding was not imported from {own}")
    if lines.get("libkiln") != str(own / "libkiln.so.0"):
        fail(f"expected the wheel's own libkiln ({own / 'libkiln.so.0'}) mapped, found: {lines.get('libkiln')}")
    if lines.get("libcuda") != "-":
        fail(f"importing and listing loaded the driver: {lines.get('libcuda')}")
    for kernel in ("saxpy", "scale<float, 4>", "block_sum<float, 256>"):
        if kernel not in lines.get("kernels", "").split("|"):
            fail(f"the package lists no {kernel}")
    outcome = lines.get("raised") or lines.get("loaded")
    if "loaded" in lines:
        return True  # a GPU: the kernel loaded
    parts = (outcome or "").split(" ", 2)
    if len(parts) < 3 or parts[0] not in ("NoDriverError", "NoDeviceError") or \
       parts[1] not in ("NO_DRIVER:", "NO_DEVICE:") or len(parts[2].strip()) < 10:
        fail(f"asking for a kernel without a GPU must raise NoDriverError/NoDeviceError saying why; got: {outcome}")
    return False


def check_self_check(python, env, cwd, has_gpu):
    status, output = run_status([str(python), "-m", "kiln_example"], env=env, cwd=cwd)
    show(f"python -m kiln_example (exit {status})", output)
    for line in ("kernel   saxpy", "kernel   scale<float, 4>", "kernel   block_sum<float, 256>", "target   "):
        if line not in output:
            fail(f"python -m kiln_example printed no '{line}'")
    if not has_gpu:
        if status != 2 or "no GPU: " not in output:
            fail("without a GPU, python -m kiln_example must say 'no GPU: <why>' and exit 2")
        run([str(python), "-m", "kiln_example", "--if-gpu"], "python -m kiln_example --if-gpu", env=env, cwd=cwd)
    elif "image    block_sum<float, 256>: " not in output or status != 2 or "skip     every check" not in output:
        # This venv has no CuPy: the images are chosen and loaded, the checks cannot allocate memory.
        fail("with a GPU and no CuPy, python -m kiln_example must list each kernel's image and exit 2")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    python, site = make_venv(args.work / "venv")
    show("pip install", pip_install(python, args.wheel))
    library = site / "kiln_example" / "_kiln" / "libkiln.so.0"
    if library.is_symlink() or not library.is_file():
        fail(f"{library} is not a regular file")

    home, tmp, cwd = (args.work / name for name in ("home", "tmp", "cwd"))
    for directory in (home, tmp, cwd):
        directory.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8"}
    before = snapshot(args.work / "venv")
    set_writable(args.work / "venv", False)
    try:
        has_gpu = check_probe(run([str(python), "-c", PROBE], "the probe", env=env, cwd=cwd), site)
        check_self_check(python, env, cwd, has_gpu)
    finally:
        set_writable(args.work / "venv", True)
    after = snapshot(args.work / "venv")
    changed = sorted(set(before.items()) ^ set(after.items()))
    if changed:
        fail(f"running the package changed the venv: {changed[:20]}")
    for directory in (home, tmp, cwd):
        written = sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))
        if directory == home and has_gpu:
            # The driver's cuInit creates its JIT cache's directories in any CUDA process; a file in
            # them would mean something was JIT-compiled, which a cubin for this GPU rules out.
            written = [p for p in written if not (p in (".nv", ".nv/ComputeCache") and (home / p).is_dir())]
        if written:
            fail(f"running the package wrote into {directory}: {written}")
    print("read-only venv unchanged; HOME, TMPDIR and the working directory still empty")


if __name__ == "__main__":
    main()
