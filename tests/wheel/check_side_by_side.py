"""wheel_side_by_side: two wheels that each carry Kiln (the example, and a copy built as the package
kiln_twin) install into one environment without sharing a file, work together in one process, and
removing one leaves the other whole.

    check_side_by_side.py --wheel FILE --twin FILE --work DIR

  - the two wheels' file lists do not overlap, nor do the RECORDs pip writes when installing them;
  - one process imports both: each binding loads its own libkiln.so.0 (two copies mapped, from the
    two packages' directories) and lists its own package's kernels;
  - after `pip uninstall kiln-example-twin`, kiln_example still lists its kernels (its binding and
    libkiln were not the twin's to remove).
"""
import argparse
import shutil
import zipfile
from pathlib import Path

from wheel_support import fail, make_venv, pip_install, run, show

PROBE = r"""
import os
import kiln_example, kiln_twin
print("modules", kiln_example.kiln is not kiln_twin.kiln)
print("example", "|".join(kiln_example.package().kernel_names))
print("twin", "|".join(kiln_twin.package().kernel_names))
mapped = sorted({path for path in (line.split()[-1] for line in open("/proc/self/maps") if "/" in line)
                 if os.path.basename(path).startswith("libkiln")})
print("libkiln", " ".join(mapped))
"""


def records(site):
    """Every path the installed distributions' RECORDs name, per distribution."""
    return {record.parent.name: {line.split(",")[0] for line in record.read_text().splitlines() if line}
            for record in site.glob("*.dist-info/RECORD")}


def main():
    parser = argparse.ArgumentParser()
    for option in ("--wheel", "--twin", "--work"):
        parser.add_argument(option, type=Path, required=True)
    args = parser.parse_args()

    names = [set(zipfile.ZipFile(wheel).namelist()) for wheel in (args.wheel, args.twin)]
    if names[0] & names[1]:
        fail(f"the two wheels hold the same files: {sorted(names[0] & names[1])}")

    shutil.rmtree(args.work, ignore_errors=True)
    python, site = make_venv(args.work / "venv")
    pip_install(python, args.wheel)
    pip_install(python, args.twin)
    installed = records(site)
    ours = [files for dist, files in installed.items()
            if dist.startswith(("kiln_example_wheel", "kiln_example_twin"))]
    if len(ours) != 2:
        fail(f"expected two installed distributions, found {sorted(installed)}")
    if ours[0] & ours[1]:
        fail(f"the installed distributions share files: {sorted(ours[0] & ours[1])}")

    env = {"PATH": "/usr/bin:/bin", "HOME": str(args.work), "LANG": "C.UTF-8"}
    output = run([str(python), "-c", PROBE], "importing both packages", env=env)
    show("both packages in one process", output)
    lines = dict(line.split(" ", 1) for line in output.splitlines() if " " in line)
    expected = {str(site / package / "_kiln" / "libkiln.so.0") for package in ("kiln_example", "kiln_twin")}
    if lines.get("modules") != "True" or set(lines.get("libkiln", "").split()) != expected:
        fail(f"each package must use its own binding and libkiln ({sorted(expected)})")
    example, twin = lines.get("example", ""), lines.get("twin")
    if example != twin or "scale<float, 4>" not in example.split("|"):
        fail("both packages must list the same kernels, scale<float, 4> among them")

    run([str(python), "-m", "pip", "uninstall", "-y", "kiln-example-twin"], "pip uninstall kiln-example-twin")
    if (site / "kiln_twin").exists():
        fail("pip uninstall left kiln_twin/ behind")
    after = run([str(python), "-c", "import kiln_example; print(kiln_example.package().kernel_names)"],
                "kiln_example after removing the twin", env=env)
    if "'scale<float, 4>'" not in after:
        fail(f"kiln_example no longer lists its kernels after the twin was removed:\n{after}")
    print("two wheels carrying Kiln: no shared file, one process, removed independently")


if __name__ == "__main__":
    main()
