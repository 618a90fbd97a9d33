"""kiln_wheel_requires: a project that lists kiln-cuda in [build-system] requires (kiln-cuda-consumer/)
built by `pip wheel` with build isolation, offline: pip installs scikit-build-core from the
wheelhouse and kiln-cuda from Kiln's wheel directory into its isolated build environment, and the
project's find_package(Kiln) finds the wheel's Kiln through its cmake.root entry point.

    check_kiln_wheel_requires.py --project DIR --dist DIR --wheelhouse DIR --kiln KILN --work DIR

  - the build says it found Kiln in pip's build environment (kiln/_prefix/lib/cmake/Kiln), with no
    Kiln_ROOT, Kiln_DIR or CMAKE_PREFIX_PATH from this environment;
  - the wheel holds kiln_cuda_consumer/kernels.kiln with scale<float> for sm_90 (read with the
    build tree's kiln inspect).
"""
import argparse
import os
import re
import shutil
import sys
import zipfile
from pathlib import Path

from wheel_support import fail, run, show


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--dist", type=Path, required=True)
    parser.add_argument("--wheelhouse", type=Path, required=True)
    parser.add_argument("--kiln", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    args = parser.parse_args()

    if not list(args.wheelhouse.glob("scikit_build_core-*.whl")):
        fail(f"no scikit-build-core wheel in {args.wheelhouse}: scripts/install-deps.sh downloads it there")
    if not list(args.dist.glob("kiln_cuda-*.whl")):
        fail(f"no kiln_cuda wheel in {args.dist} (kiln_wheel_build makes it)")
    shutil.rmtree(args.work, ignore_errors=True)
    source = args.work / "src"
    shutil.copytree(args.project, source, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("Kiln_ROOT", "Kiln_DIR", "CMAKE_PREFIX_PATH", "PIP_NO_INDEX",
                                                             "PIP_FIND_LINKS", "PIP_NO_BUILD_ISOLATION")}
    # -v: pip shows CMake's output, where the project says which Kiln it found.
    output = run([sys.executable, "-m", "pip", "wheel", "-v", "--no-index", "--no-deps", "--no-cache-dir",
                  "--disable-pip-version-check", "--find-links", str(args.dist), "--find-links", str(args.wheelhouse),
                  "-w", str(args.work / "dist"), str(source)], "pip wheel with build isolation", env=env)
    found = re.search(r"kiln_cuda_consumer: Kiln from (\S+)", output)
    show("pip wheel", "\n".join(line for line in output.splitlines()
                                  if "kiln_cuda_consumer:" in line or "Installing" in line or "Successfully" in line))
    if not found or not found.group(1).endswith("/kiln/_prefix/lib/cmake/Kiln") or "pip-build-env" not in found.group(1):
        fail(f"find_package(Kiln) did not find the kiln-cuda wheel in pip's build environment: "
             f"{found.group(1) if found else 'no message'}")
    wheels = list((args.work / "dist").glob("kiln_cuda_consumer-0.1.0-*.whl"))
    if len(wheels) != 1:
        fail(f"pip wheel wrote {[w.name for w in (args.work / 'dist').glob('*')]}, expected kiln_cuda_consumer's wheel")
    package = args.work / "kernels.kiln"
    with zipfile.ZipFile(wheels[0]) as archive:
        if "kiln_cuda_consumer/kernels.kiln" not in archive.namelist():
            fail(f"{wheels[0].name} holds no kiln_cuda_consumer/kernels.kiln: {archive.namelist()}")
        package.write_bytes(archive.read("kiln_cuda_consumer/kernels.kiln"))
    listing = run([str(args.kiln), "inspect", str(package)], "kiln inspect")
    if "scale<float>" not in listing or "sm_90" not in listing:
        fail(f"the project's package lacks scale<float> for sm_90:\n{listing}")
    print(f"{wheels[0].name}: built against kiln-cuda from {found.group(1)}; its package holds scale<float>")


if __name__ == "__main__":
    main()
