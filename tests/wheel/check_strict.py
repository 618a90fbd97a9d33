#!/usr/bin/env python3
"""wheel_strict: what the scan has to say reaches someone who builds the wheel with pip.

pip shows a successful build's output only with -v, so a warning of Kiln's is easy to miss under
pip. This builds a copy of the example whose ops.py asks for a kernel no source defines (a finding
of the scan: a warning without --strict):
  - `pip wheel -v`: the build succeeds and its output ends Kiln's part with the line that counts the
    warnings and says how to make them fail the build;
  - `KILN_STRICT=1 pip wheel` (no -v): the build fails, and pip shows the finding as an error.

  check_strict.py --example examples/python-wheel --prefix <Kiln's install> --work DIR
"""
import argparse
import os
import shutil
import sys
from pathlib import Path

from wheel_support import fail, run, show

MISSING = "no_such_kernel<float>"


def pip_wheel(source, work, prefix, *, verbose, strict, expect):
    dist = work / ("dist-strict" if strict else "dist")
    shutil.rmtree(dist, ignore_errors=True)
    settings = [f"build-dir={work / ('build-strict' if strict else 'build')}",
                "cmake.define.KILN_EXAMPLE_ARCHITECTURES=80-real"]
    env = dict(os.environ, CMAKE_PREFIX_PATH=str(prefix))
    env.pop("KILN_STRICT", None)
    if strict:
        env["KILN_STRICT"] = "1"
    command = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
               *(["-v"] if verbose else []), "-w", str(dist),
               *(f"--config-settings={setting}" for setting in settings), str(source)]
    return run(command, "pip wheel", expect=expect, env=env)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--example", type=Path, required=True)
    parser.add_argument("--prefix", type=Path, required=True, help="Kiln's install prefix")
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    source = args.work / "src"
    shutil.copytree(args.example, source, ignore=shutil.ignore_patterns("__pycache__"))
    ops = source / "src" / "kiln_example" / "ops.py"
    ops.write_text(ops.read_text() + f'\n\ndef missing():\n    return package().kernel("{MISSING}")\n')

    warned = pip_wheel(source, args.work, args.prefix, verbose=True, strict=False, expect=0)
    show("pip wheel -v", "\n".join(line for line in warned.splitlines() if "kiln" in line.lower())[-4000:])
    if MISSING not in warned:
        fail(f"pip wheel -v does not show the warning about {MISSING}")
    if "from the scan; with --strict (KILN_STRICT=1) the scan's findings fail the build" not in warned:
        fail("pip wheel -v does not show Kiln's line that counts the warnings")

    refused = pip_wheel(source, args.work, args.prefix, verbose=False, strict=True, expect=1)
    show("KILN_STRICT=1 pip wheel", refused[-4000:])
    if f"error: " not in refused or MISSING not in refused:
        fail(f"KILN_STRICT=1 pip wheel fails without naming {MISSING} as an error")
    if "with --strict; no package written" not in refused:
        fail("KILN_STRICT=1 pip wheel does not say that --strict failed the build")
    print("wheel_strict: ok")


if __name__ == "__main__":
    main()
