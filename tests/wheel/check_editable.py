#!/usr/bin/env python3
"""An editable install of the example (`pip install -e`) finds its kernels (docs/python.md).

In an editable install the package's Python files stay in the source tree while what CMake installs
(kernels.kiln) goes to site-packages: `Path(__file__).with_name("kernels.kiln")` names a file that
does not exist there, `importlib.resources.files(__package__)` finds the installed one. This installs
the example editable into a prefix of its own (`pip install -e --prefix`, scikit-build-core's
redirect mode), then imports it in a fresh interpreter and lists the package's kernels.

  check_editable.py --example examples/python-wheel --prefix <Kiln's install> --work DIR
"""
import argparse
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from wheel_support import fail, run, show

PROBE = """
import site, sys
from pathlib import Path
site.addsitedir(sys.argv[1])   # processes the editable install's .pth, as a site directory would
import kiln_example
beside = Path(kiln_example.__file__).with_name("kernels.kiln")
print("module", kiln_example.__file__)
print("package", kiln_example.PACKAGE_FILE)
print("beside __file__", beside, "exists" if beside.exists() else "missing")
print("kernels", ", ".join(kiln_example.package().kernel_names))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--example", type=Path, required=True)
    parser.add_argument("--prefix", type=Path, required=True, help="Kiln's install prefix")
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    target = args.work / "prefix"
    env = dict(os.environ, CMAKE_PREFIX_PATH=str(args.prefix))
    run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "-e",
         str(args.example), "--prefix", str(target), f"--config-settings=build-dir={args.work / 'build'}",
         "--config-settings=cmake.define.KILN_EXAMPLE_ARCHITECTURES=80"], "pip install -e", env=env)
    relative = Path(sysconfig.get_path("purelib", vars={"base": ""}).lstrip("/"))
    site_packages = target / relative
    if not (site_packages / "kiln_example" / "kernels.kiln").is_file():
        fail(f"the editable install put no kiln_example/kernels.kiln in {site_packages}")
    output = run([sys.executable, "-B", "-c", PROBE, str(site_packages)], "the editable import", cwd=args.work)
    show("the editable install", output)
    if f"module {args.example.resolve()}" not in output:
        fail("the module was not imported from the source tree: not an editable install")
    if "missing" not in output:
        fail("kernels.kiln is beside the source module: the test would not tell the two lookups apart")
    if "kernels scale<float, 4>, block_sum<float, 256>, saxpy" not in output:
        fail("the package found through importlib.resources does not list the example's kernels")


if __name__ == "__main__":
    main()
