"""kiln_wheel_install: Kiln's wheel (kiln_wheel_build) installed by pip into a fresh venv, from a local
directory and nothing else, then used:

    check_kiln_wheel_install.py --dist DIR --project DIR --work DIR --version X.Y.Z

  - `pip install --no-index --find-links DIST kiln-cuda` installs it;
  - the console script `kiln --version` says kiln <version>, and passes the binary's exit status
    through (an unknown command exits as the binary itself does);
  - `import kiln` loads the libkiln.so.0 inside the wheel (kiln/_prefix/lib), and kiln._prefix names
    the prefix that holds lib/cmake/Kiln (what a plain CMake build passes as Kiln_ROOT);
  - a plain CMake build of the project, given Kiln_ROOT as docs/python.md writes it (from
    kiln._prefix), finds the wheel's Kiln and builds its package;
  - `auditwheel show` finds the wheel consistent with manylinux_2_36_x86_64 and needing no library
    outside the policy;
  - with /usr/lib/llvm-19 hidden (a tmpfs over it, in a mount namespace of its own: unshare -m),
    the wheel's kiln scans and builds the project's kernel template, sm_90, with its grafted LLVM
    and clang and its own copy of clang's headers; the package holds scale<float>.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from wheel_support import fail, make_venv, run, run_status, show

LLVM = "/usr/lib/llvm-19"
PLATFORM = "manylinux_2_36_x86_64"
PROBE = """
import kiln, kiln._prefix
print("binding", kiln.__file__)
print("library", kiln.runtime_library_path())
print("prefix", kiln._prefix.__path__[0])
"""
MANIFEST = """name = "consumer"
targets = ["sm_90"]

[[source]]
path = "scale.cu"
instantiate = ["scale<float>"]
"""
# Run under unshare: hides the system's LLVM and clang for this command alone, shows that it is gone,
# then scans and builds with the wheel's kiln.
HIDDEN = ('mount -t tmpfs kiln-test-empty "$0" && ! ls "$0"/lib/libLLVM* 2>/dev/null && echo "$0 hidden" && '
          '"$1" scan "$2" && "$1" build "$3" -o "$4"')


def check_exit_status(kiln, binary):
    script_status, _ = run_status([str(kiln), "no-such-command"])
    binary_status, _ = run_status([str(binary), "no-such-command"])
    if script_status != binary_status or script_status == 0:
        fail(f"the console script exited {script_status} on an unknown command, the binary {binary_status}")


def check_import(python, site):
    output = run([str(python), "-c", PROBE], "import kiln")
    show("import kiln", output)
    lines = dict(line.split(" ", 1) for line in output.splitlines() if " " in line)
    prefix = site / "kiln" / "_prefix"
    if lines.get("binding") != str(site / "kiln" / "__init__.py"):
        fail(f"kiln was imported from {lines.get('binding')}, not {site / 'kiln'}")
    if lines.get("library") != str(prefix / "lib" / "libkiln.so.0"):
        fail(f"import kiln loaded {lines.get('library')}, not the wheel's {prefix / 'lib' / 'libkiln.so.0'}")
    if lines.get("prefix") != str(prefix) or not (prefix / "lib/cmake/Kiln/KilnConfig.cmake").is_file():
        fail(f"kiln._prefix names {lines.get('prefix')}, not {prefix} with lib/cmake/Kiln/KilnConfig.cmake")
    return prefix


def check_plain_cmake(python, prefix, project, work):
    """The project configured and built by CMake alone, Kiln_ROOT asked of the installed wheel."""
    root = run([str(python), "-c", "import kiln._prefix as p; print(p.__path__[0])"], "kiln._prefix").strip()
    build = work / "plain-cmake"
    env = dict(os.environ, KILN_CACHE_DIR=str(work / "cache"))
    for name in ("Kiln_DIR", "CMAKE_PREFIX_PATH"):
        env.pop(name, None)
    output = run(["cmake", "-S", str(project), "-B", str(build), "-G", "Ninja", f"-DKiln_ROOT={root}"],
                 "cmake -DKiln_ROOT=...", env=env)
    if f"kiln_cuda_consumer: Kiln from {prefix}/lib/cmake/Kiln" not in output:
        fail(f"cmake -DKiln_ROOT={root} did not find the wheel's Kiln ({prefix}):\n{output}")
    run(["cmake", "--build", str(build)], "cmake --build of the project against the wheel's Kiln", env=env)
    if not (build / "consumer_kernels.kiln").is_file():
        fail(f"the plain CMake build wrote no {build / 'consumer_kernels.kiln'}")


# `auditwheel show`, its own main, with one change that leaves its report as it is: a library's
# undefined symbols are read once, not once for each policy and each library that needs it (pyelftools
# reads LLVM's 1.4 million symbols in Python: most of a minute in all, against a third of that).
AUDITWHEEL_SHOW = """
import functools, sys
import auditwheel.elfutils as elfutils
if hasattr(elfutils, "get_undefined_symbols"):
    elfutils.get_undefined_symbols = functools.lru_cache(maxsize=None)(elfutils.get_undefined_symbols)
from auditwheel.main import main
sys.argv = ["auditwheel", "show", sys.argv[1]]
sys.exit(main())
"""


def start_auditwheel(wheel):
    """auditwheel show, started first and read last: it reads every ELF file of the wheel with
    pyelftools, while the rest of the test runs beside it."""
    return subprocess.Popen([sys.executable, "-c", AUDITWHEEL_SHOW, str(wheel)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def check_auditwheel(show_process):
    output, _ = show_process.communicate()
    if show_process.returncode != 0:
        fail(f"auditwheel show exited {show_process.returncode}:\n{output}")
    text = " ".join(output.split())  # auditwheel wraps its sentences at 72 columns
    if f'is consistent with the following platform tag: "{PLATFORM}"' not in text:
        fail(f"auditwheel show does not find the wheel consistent with {PLATFORM}:\n{output}")
    if "external shared libraries are required" in text:
        fail(f"auditwheel show lists libraries outside the {PLATFORM} policy:\n{output}")
    show("auditwheel show (first lines)", "\n".join(output.splitlines()[:3]))


def check_without_system_llvm(kiln, project, work):
    """The scan and build with LLVM hidden. unshare needs root or user namespaces: refused, the test
    fails saying so (it would prove nothing passed)."""
    status, output = run_status(["unshare", "--mount", "--propagation", "private", "true"])
    if status != 0:
        fail(f"cannot hide {LLVM}: unshare --mount is refused here (it needs root or user namespaces):\n{output}")
    if not os.path.isdir(LLVM):
        fail(f"no {LLVM} on this machine to hide (the build tree's Kiln links it)")
    source = work / "scale.cu"  # beside the manifest, whose source paths are relative to it
    shutil.copy2(project / "kernels" / "scale.cu", source)
    manifest = work / "kiln.toml"
    manifest.write_text(MANIFEST)
    package = work / "consumer.kiln"
    env = dict(os.environ, KILN_CACHE_DIR=str(work / "cache"))  # fresh: the scan parses, nothing is reused
    env.pop("KILN_CLANG_RESOURCE_DIR", None)
    output = run(["unshare", "--mount", "--propagation", "private", "sh", "-c", HIDDEN, LLVM, str(kiln),
                  str(source), str(manifest), str(package)],
                 f"kiln scan and kiln build with {LLVM} hidden", env=env)
    show(f"kiln scan, kiln build with {LLVM} hidden", output)
    if f"{LLVM} hidden" not in output or not re.search(r"\bscale\b", output):
        fail(f"the scan with {LLVM} hidden did not list the kernel template scale")
    listing = run([str(kiln), "inspect", str(package)], "kiln inspect")
    if "scale<float>" not in listing or "sm_90" not in listing:
        fail(f"the package built with {LLVM} hidden lacks scale<float> for sm_90:\n{listing}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist", type=Path, required=True)
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--version", required=True)
    args = parser.parse_args()

    wheels = sorted(args.dist.glob(f"kiln_cuda-*-{PLATFORM}.whl"))
    if len(wheels) != 1:
        fail(f"expected one kiln_cuda wheel in {args.dist} (kiln_wheel_build), found {[w.name for w in wheels]}")
    shutil.rmtree(args.work, ignore_errors=True)
    auditwheel = start_auditwheel(wheels[0])
    try:
        python, site = make_venv(args.work / "venv")
        run([str(python), "-m", "pip", "install", "--no-index", "--find-links", str(args.dist), "--no-cache-dir",
             "--disable-pip-version-check", "kiln-cuda"], "pip install --no-index --find-links")
        kiln = args.work / "venv" / "bin" / "kiln"
        output = run([str(kiln), "--version"], "the console script kiln --version")
        if output.strip() != f"kiln {args.version}":
            fail(f"kiln --version printed {output!r}, expected 'kiln {args.version}'")
        prefix = check_import(python, site)
        check_exit_status(kiln, prefix / "bin" / "kiln")
        check_without_system_llvm(kiln, args.project.resolve(), args.work)
        check_plain_cmake(python, prefix, args.project.resolve(), args.work)
        check_auditwheel(auditwheel)
    finally:
        if auditwheel.poll() is None:  # a check above failed: stop it rather than leave it running
            auditwheel.kill()
    print("installed from a local directory; kiln, import kiln and find_package's prefix are the wheel's; "
          f"{PLATFORM}; builds without the system's LLVM")


if __name__ == "__main__":
    main()
