"""wheel_build, wheel_twin_build: build examples/python-wheel with pip against the installed Kiln and
check what the wheel holds.

    build_wheel.py --example DIR --prefix KILN_PREFIX --work DIR --dist DIR --architectures ARCHS
                   [--package NAME --distribution NAME]

With --package/--distribution a copy of the example is built under another import package and
distribution name: a second wheel that carries its own Kiln, for wheel_side_by_side. Checks:
  - the file name is <distribution>-0.1.0-py3-none-linux_x86_64.whl: any Python 3 (the binding's
    calls in C, _native.abi3.so, load in CPython 3.8 and later; elsewhere it uses ctypes);
  - the wheel holds <package>/... and its .dist-info only: no top-level kiln/, no symbolic link, and
    two shared libraries, <package>/_kiln/libkiln.so.0 and <package>/_kiln/_native.abi3.so;
  - their NEEDED entries are system libraries only (no libcuda, no CUDA toolkit library, no
    libpython), they have no RPATH/RUNPATH, and they are stripped;
  - kernels.kiln holds saxpy and the instantiations only the Python code asks for.
"""
import argparse
import importlib.util
import os
import re
import shutil
import stat
import sys
import zipfile
from pathlib import Path

from wheel_support import fail, run, show

# What libkiln may link: the C and C++ runtime and the loader. Anything else (libcuda, libcudart,
# libnvrtc, libnvJitLink, ...) would tie the wheel to a driver or toolkit being installed.
ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libdl.so.2",
                  "libpthread.so.0", "librt.so.1", "ld-linux-x86-64.so.2"}
PYTHON_ONLY_KERNELS = ("scale<float, 4>", "block_sum<float, 256>")


def copy_renamed(example, work, package, distribution):
    """The example as another project would copy it: its import package and distribution renamed
    (src/kiln_example -> src/<package>; every kiln_example in CMakeLists.txt and pyproject.toml).
    The Python files import only relatively, so they need no change."""
    source = work / "src"
    shutil.copytree(example, source, ignore=shutil.ignore_patterns("__pycache__"))
    (source / "src" / "kiln_example").rename(source / "src" / package)
    for name in ("CMakeLists.txt", "pyproject.toml"):
        path = source / name
        text = path.read_text().replace("kiln-example-wheel", distribution)
        if "kiln_example" not in text:
            fail(f"{path} names no kiln_example to rename")
        path.write_text(text.replace("kiln_example", package))
    return source


def check_tools():
    """pip and scikit-build-core in this interpreter, which builds with its own: without them pip
    fails with a long traceback or a usage message that does not say what is missing."""
    missing = [name for module, name in (("pip", "pip"), ("scikit_build_core", "scikit-build-core"))
               if importlib.util.find_spec(module) is None]
    if missing:
        fail(f"{sys.executable} has no {' and no '.join(missing)}: the wheel tests build with this "
             "interpreter's own (set KILN_PYTHON; scripts/install-deps.sh makes .venv with them)")


def build(args, source):
    shutil.rmtree(args.dist, ignore_errors=True)
    # --no-build-isolation: the interpreter's own scikit-build-core, nothing downloaded; the build
    # directory is outside the source tree and fresh. --config-settings, not -C: pip before 23.1
    # (Debian 12's venvs start with 23.0) knows only the long form.
    settings = [f"build-dir={args.work / 'build'}",
                f"cmake.define.KILN_EXAMPLE_ARCHITECTURES={args.architectures.replace(',', ';')}"]
    # Kiln's prefix through the environment, as docs/python.md says: it adds to the prefixes
    # scikit-build-core gives CMake, where cmake.define.CMAKE_PREFIX_PATH would replace them.
    prefixes = os.pathsep.join(p for p in (str(args.prefix), os.environ.get("CMAKE_PREFIX_PATH", "")) if p)
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
         "-w", str(args.dist), *(f"--config-settings={setting}" for setting in settings), str(source)],
        "pip wheel", env=dict(os.environ, CMAKE_PREFIX_PATH=prefixes))
    wheels = sorted(args.dist.glob("*.whl"))
    if len(wheels) != 1:
        fail(f"expected one wheel in {args.dist}, found {[w.name for w in wheels]}")
    return wheels[0]


def check_contents(wheel, package, distribution):
    expected_name = f"{distribution.replace('-', '_')}-0.1.0-py3-none-linux_x86_64.whl"
    if wheel.name != expected_name:
        fail(f"the wheel is {wheel.name}, expected {expected_name}")
    with zipfile.ZipFile(wheel) as archive:
        entries = archive.infolist()
    names = [entry.filename for entry in entries]
    show(f"{wheel.name} holds", "\n".join(names))
    dist_info = f"{distribution.replace('-', '_')}-0.1.0.dist-info/"
    strays = [n for n in names if not n.startswith((f"{package}/", dist_info))]
    if strays:
        fail(f"files outside {package}/ and {dist_info}: {strays}")
    links = [e.filename for e in entries if stat.S_ISLNK(e.external_attr >> 16)]
    if links:
        fail(f"symbolic links in the wheel: {links}")
    libraries = sorted(n for n in names if re.search(r"\.so(\.|$)", n))
    expected = [f"{package}/_kiln/_native.abi3.so", f"{package}/_kiln/libkiln.so.0"]
    if libraries != expected:
        fail(f"expected the binding's calls in C and libkiln, {expected}; found {libraries}")
    for needed in ("__init__.py", "ops.py", "__main__.py", "kernels.kiln", "_kiln/__init__.py"):
        if f"{package}/{needed}" not in names:
            fail(f"the wheel has no {package}/{needed}")


def check_library(library):
    dynamic = run(["readelf", "-d", str(library)], "readelf -d")
    show(f"readelf -d {library.name}", dynamic)
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    if not needed:
        fail("readelf shows no NEEDED entry at all: not the library expected")
    foreign = sorted(needed - ALLOWED_NEEDED)
    if foreign:
        fail(f"{library.name} needs {foreign}: only system libraries are allowed ({sorted(ALLOWED_NEEDED)})")
    if re.search(r"\((RPATH|RUNPATH)\)", dynamic):
        fail(f"{library.name} has an RPATH/RUNPATH; it needs none")
    # scikit-build-core installs with --strip, and kiln_install_python_runtime strips then.
    sections = run(["readelf", "-S", str(library)], "readelf -S")
    if ".debug_info" in sections:
        fail(f"{library.name} in the wheel carries debug information ({library.stat().st_size} bytes): not stripped")


def check_package_file(kiln, package_file):
    listing = run([str(kiln), "inspect", str(package_file)], "kiln inspect")
    show("kiln inspect kernels.kiln", listing)
    for kernel in ("saxpy",) + PYTHON_ONLY_KERNELS:
        if kernel not in listing:
            fail(f"kernels.kiln has no {kernel} (the Python scanner should have found it in ops.py)")


def main():
    parser = argparse.ArgumentParser()
    for option in ("--example", "--prefix", "--work", "--dist"):
        parser.add_argument(option, type=Path, required=True)
    parser.add_argument("--architectures", required=True)
    parser.add_argument("--package", default="kiln_example")
    parser.add_argument("--distribution", default="kiln-example-wheel")
    args = parser.parse_args()
    check_tools()

    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    source = args.example
    if args.package != "kiln_example":
        source = copy_renamed(args.example, args.work, args.package, args.distribution)
    wheel = build(args, source)
    check_contents(wheel, args.package, args.distribution)
    unpacked = args.work / "unpacked"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    check_library(unpacked / args.package / "_kiln" / "libkiln.so.0")
    check_library(unpacked / args.package / "_kiln" / "_native.abi3.so")
    check_package_file(args.prefix / "bin" / "kiln", unpacked / args.package / "kernels.kiln")
    print(f"wheel: {wheel}")


if __name__ == "__main__":
    main()
