"""wheel_split_build: examples/python-wheel built split, as one `pip wheel`: the main wheel (index, PTX,
the runtime) and a provider wheel per architecture family, checked file by file.

    build_split_wheels.py --example DIR --prefix KILN_PREFIX --work DIR --architectures ARCHS
                          [--single-wheel FILE]

Writes, under --work:
  dist/           kiln_example_wheel-0.1.0-py3-none-linux_x86_64.whl and
                  kiln_example_wheel_cc<major>-0.1.0-py3-none-any.whl, from the one build
  variant-dist/   the same providers under PEP 825 file names (...-any-cc<major>.whl)
  other-version/  the providers as version 0.2.0 (the same files): for wheel_split_install's refusal
  another-build/  the cc9 provider, version 0.1.0, of another build (for sm_90 and compute_90 only):
                  a companion the runtime must refuse
The middle two are provider_wheels.py run again on the build's split package; the last is a second
pip wheel whose kernels all come from the test tree's Kiln cache. No kernel is compiled twice.
Checks:
  - the main wheel is the single wheel's layout (build_wheel.check_contents), its kernels.kiln a main
    file of a split and no companion beside it; its METADATA offers extra cc<major> pinned to its version;
  - each provider holds <package>/kernels.cc<major>.kiln and its .dist-info only, installs into
    platlib (Root-Is-Purelib: false), is tagged py3-none-any and pins kiln-example-wheel==0.1.0.
Prints the wheels' sizes beside --single-wheel's (the one-wheel build of the same architectures).
"""
import argparse
import os
import re
import shutil
import sys
import zipfile
from pathlib import Path

from build_wheel import check_contents, check_tools
from wheel_support import fail, run, show

MAIN = "kiln_example_wheel-0.1.0-py3-none-linux_x86_64.whl"


def families(architectures):
    """The majors whose cubins the build makes: "80-real,90" -> {8, 9}."""
    return {int(re.match(r"[0-9]+", arch)[0]) // 10 for arch in architectures.split(",")}


def build(args, dist, architectures, build_dir="build"):
    settings = [f"build-dir={args.work / build_dir}",
                f"cmake.define.KILN_EXAMPLE_ARCHITECTURES={architectures.replace(',', ';')}",
                f"cmake.define.KILN_EXAMPLE_PROVIDER_WHEELS={dist}"]
    prefixes = os.pathsep.join(p for p in (str(args.prefix), os.environ.get("CMAKE_PREFIX_PATH", "")) if p)
    run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
         "-w", str(dist), *(f"--config-settings={setting}" for setting in settings), str(args.example)],
        "pip wheel", env=dict(os.environ, CMAKE_PREFIX_PATH=prefixes))


def read(wheel, name):
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(name).decode()


def check_main(args, wheel, majors):
    check_contents(wheel, "kiln_example", "kiln-example-wheel")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extract("kiln_example/kernels.kiln", args.work / "main")
    companions = [n for n in names if re.search(r"\.cc[0-9]+\.kiln$", n)]
    if companions:
        fail(f"the main wheel holds cubins of a family: {companions}")
    main_file = args.work / "main" / "kiln_example" / "kernels.kiln"
    listing = run([str(args.prefix / "bin" / "kiln"), "inspect", str(main_file)], "kiln inspect")
    expected = [f"kernels.cc{m}.kiln" for m in sorted(majors)]
    split = re.search(r"split: the index and PTX; cubins in (.*)", listing)
    if not split or [Path(p).name for p in split[1].split(", ")] != expected:
        show("kiln inspect kernels.kiln", listing)
        fail(f"the main wheel's kernels.kiln is not the main file of a split into {expected}")
    metadata = read(wheel, "kiln_example_wheel-0.1.0.dist-info/METADATA")
    for major in majors:
        pin = f"Requires-Dist: kiln-example-wheel-cc{major}==0.1.0; extra == \"cc{major}\""
        if f"Provides-Extra: cc{major}" not in metadata or pin not in metadata:
            show("METADATA", metadata)
            fail(f"the main wheel offers no extra cc{major} pinned to its version ('{pin}')")


def check_provider(wheel, major):
    dist_info = f"kiln_example_wheel_cc{major}-0.1.0.dist-info"
    with zipfile.ZipFile(wheel) as archive:
        names = sorted(archive.namelist())
    expected = sorted([f"kiln_example/kernels.cc{major}.kiln", f"kiln_example/kernels.cc{major}.version"] +
                      [f"{dist_info}/{n}" for n in ("METADATA", "WHEEL", "RECORD", "variant.json")])
    if names != expected:
        fail(f"{wheel.name} holds {names}, expected {expected}")
    fields = read(wheel, f"{dist_info}/WHEEL")
    for line in ("Root-Is-Purelib: false", "Tag: py3-none-any"):
        if line not in fields.splitlines():
            fail(f"{wheel.name}'s WHEEL has no '{line}':\n{fields}")
    metadata = read(wheel, f"{dist_info}/METADATA")
    for line in (f"Name: kiln-example-wheel-cc{major}", "Version: 0.1.0", "Requires-Dist: kiln-example-wheel==0.1.0"):
        if line not in metadata.splitlines():
            fail(f"{wheel.name}'s METADATA has no '{line}':\n{metadata}")


def write_providers(args, out, *options):
    """provider_wheels.py again on the split package the build left: other names or versions."""
    found = sorted((args.work / "build").rglob("kiln_example_kernels.kiln"))
    if len(found) != 1:
        fail(f"expected one kiln_example_kernels.kiln under {args.work / 'build'}, found {found}")
    run([sys.executable, str(args.example / "provider_wheels.py"), "--package", str(found[0]),
         "--kiln", str(args.prefix / "bin" / "kiln"), "--distribution", "kiln-example-wheel",
         "--install-as", "kiln_example/kernels.kiln", "--out", str(args.work / out), *options],
        f"provider_wheels.py {' '.join(options)}")


def main():
    parser = argparse.ArgumentParser()
    for option in ("--example", "--prefix", "--work"):
        parser.add_argument(option, type=Path, required=True)
    parser.add_argument("--architectures", required=True)
    parser.add_argument("--single-wheel", type=Path)
    args = parser.parse_args()
    check_tools()

    shutil.rmtree(args.work, ignore_errors=True)
    dist = args.work / "dist"
    # A provider an earlier build wrote for a family this one lacks: the build removes it.
    dist.mkdir(parents=True)
    (dist / "kiln_example_wheel_cc7-0.1.0-py3-none-any.whl").write_bytes(b"an earlier build's")
    build(args, dist, args.architectures)
    majors = families(args.architectures)
    wheels = sorted(p.name for p in dist.glob("*.whl"))
    expected = sorted([MAIN] + [f"kiln_example_wheel_cc{m}-0.1.0-py3-none-any.whl" for m in majors])
    if wheels != expected:
        fail(f"one build should leave {expected} (an earlier build's cc7 provider removed); it left {wheels}")
    check_main(args, dist / MAIN, majors)
    for major in majors:
        check_provider(dist / f"kiln_example_wheel_cc{major}-0.1.0-py3-none-any.whl", major)

    write_providers(args, "variant-dist", "--version", "0.1.0", "--variant-names")
    write_providers(args, "other-version", "--version", "0.2.0")
    build(args, args.work / "another-build", "90", "another-build-tree")

    sizes = [(p.name, p.stat().st_size) for p in sorted(dist.glob("*.whl"))]
    if args.single_wheel and args.single_wheel.is_file():
        sizes.append((f"{args.single_wheel.name} (one wheel, every cubin)", args.single_wheel.stat().st_size))
    show("wheel sizes (bytes)", "\n".join(f"{size:>10,}  {name}" for name, size in sizes))


if __name__ == "__main__":
    main()
