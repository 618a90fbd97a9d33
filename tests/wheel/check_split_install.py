"""wheel_split_install: the split example's main wheel installed with and without provider wheels, each
into a fresh venv, offline (pip install --no-index --find-links), and the kernel each GPU would load.

    check_split_install.py --wheels WORK --work DIR [--kiln KILN]

WORK is wheel_split_build's: dist/ (main wheel, cc8 and cc9 providers, version 0.1.0) and
other-version/ (the providers as 0.2.0). Without a GPU, the choice is the runtime's for a device of a
given compute capability: the binding's Package.image(arch=...) and, given --kiln, `kiln inspect
--device` on the installed kernels.kiln (scripts/gpu-check.sh carries no generator). The kernels
are built for sm_80, sm_90 and compute_90 (PTX):

  venv           installs                                 9.0             8.6               12.0
  main           kiln-example-wheel                       PTX             none: names the   PTX
                                                                          cc8 file to install
  providers      kiln-example-wheel[cc8,cc9]              cubin sm_90     cubin sm_80       PTX
                                                          (exact)         (family)
  by-provider    kiln-example-wheel-cc9 (its pin brings   cubin sm_90     none: names cc8   PTX
                 the main wheel)

Error cases:
  - a provider of another version: pip's resolver refuses it (the pins); installed anyway with
    --no-deps, kiln_example.package() raises ProviderVersionError naming both versions and the file,
    and python -m kiln_example exits 2 saying so;
  - no provider for the device's family and no PTX for it (8.6 above): the runtime's error names the
    file to install;
  - a provider of the same version from another build (another-build/: its cubins are not the ones
    the main file lists): the runtime refuses it, KILN_STATUS_CORRUPT naming the file and saying to
    install the provider of the main wheel's version, rather than loading it or the PTX.
With a GPU the kernel is also loaded, and in the providers venv it must come from its family's cubin.
"""
import argparse
import json
import re
import shutil
import sys
from pathlib import Path

from wheel_support import fail, make_venv, run, run_status, show

ARCHS = (90, 86, 120)
# Prints {arch: [kind, target, description] or ["error", status, message]} and, where a GPU is, the
# device's own image.
PROBE = r"""
import json, kiln_example
pkg = kiln_example.package()
out = {}
for arch in (90, 86, 120):
    try:
        image = pkg.image("saxpy", arch=arch)
        out[arch] = [image.kind, image.target, image.description]
    except kiln_example.kiln.KilnError as error:
        out[arch] = ["error", error.status_name, str(error)]
try:
    image = pkg.image("saxpy")
    out["device"] = [image.kind, image.target, image.compute_capability]
except (kiln_example.kiln.NoDriverError, kiln_example.kiln.NoDeviceError):
    out["device"] = None
except kiln_example.kiln.KilnError as error:
    out["device"] = ["error", error.status_name, str(error)]
print(json.dumps(out))
"""


def pip(python, *arguments, expect=0):
    """pip install into the venv of `python`, by this interpreter's pip (the venvs have none: making
    five venvs with pip took 20 s)."""
    return run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index", "--no-cache-dir",
                "--disable-pip-version-check", *map(str, arguments)], "pip install", expect=expect)


def probe(python):
    output = run([str(python), "-c", PROBE], "the probe")
    return json.loads(output.strip().splitlines()[-1])


def expect_choice(venv, choices, arch, kind, target=None, says=None):
    kind_got, target_got, text = choices[str(arch)]
    if kind_got != kind or (target and target_got != target) or (says and says not in text):
        fail(f"{venv}: saxpy on a {arch // 10}.{arch % 10} device: got {choices[str(arch)]}, expected {kind} "
             f"{target or ''} {('saying ' + repr(says)) if says else ''}")


def expect_inspect(venv, kiln, site, lines):
    """`kiln inspect --device 9.0` on the installed main file: the runtime's choice, from the CLI."""
    if kiln is None:
        return
    # From the package directory: the files are named as given, here without the venv's path.
    listing = run([str(kiln), "inspect", "kernels.kiln", "--device", "9.0"], "kiln inspect --device 9.0",
                  cwd=site / "kiln_example")
    for line in lines:
        if line not in listing:
            show(f"{venv}: kiln inspect --device 9.0", listing)
            fail(f"{venv}: kiln inspect --device 9.0 printed no '{line}'")


def expect_gpu(venv, choices, providers, refused=None):
    """With a GPU: its image comes from its family's provider where one is installed; `refused`, the
    major whose installed provider is of another build, must fail naming it."""
    device = choices.get("device")
    if device is None:
        return
    if device[0] == "error":
        if refused is not None and device[1] == "CORRUPT" and f"kernels.cc{refused}.kiln" in device[2]:
            print(f"{venv}: the GPU's provider is refused: {device[2]}")
            return
        missing = re.search(r"kernels\.cc([0-9]+)\.kiln, which is not installed", device[2])
        if device[1] == "NO_IMAGE_FOR_DEVICE" and missing and int(missing[1]) not in providers:
            print(f"{venv}: the GPU has no image without its provider: {device[2]}")  # an 8.x GPU, no PTX
            return
        fail(f"{venv}: the GPU's image for saxpy: {device[1]}: {device[2]}")
    kind, target, capability = device
    if refused is not None and capability // 10 == refused:
        fail(f"{venv}: the GPU loaded {kind} {target} despite its provider of another build")
    if capability // 10 in providers and kind != "cubin":
        fail(f"{venv}: the GPU (compute capability {capability}) loads {kind} {target}, not its provider's cubin")
    print(f"{venv}: the GPU ({capability}) loads saxpy from {kind} {target}")


def venv_main(args, kiln):
    python, site = make_venv(args.work / "main", with_pip=False)
    pip(python, "--find-links", args.wheels / "dist", "kiln-example-wheel")
    companions = sorted(p.name for p in (site / "kiln_example").glob("kernels.cc*.kiln"))
    if companions:
        fail(f"the main wheel alone installed {companions}")
    choices = probe(python)
    show("main: saxpy's image by device", json.dumps(choices, indent=1))
    expect_choice("main", choices, 90, "ptx", "compute_90")
    expect_choice("main", choices, 86, "error", says="kernels.cc8.kiln, which is not installed")
    expect_choice("main", choices, 120, "ptx", "compute_90")
    expect_inspect("main", kiln, site, ["this device's cubins: kernels.cc9.kiln (not installed",
                                        "loads PTX compute_90"])
    expect_gpu("main", choices, set())


def venv_providers(args, kiln):
    python, site = make_venv(args.work / "providers", with_pip=False)
    pip(python, "--find-links", args.wheels / "dist", "kiln-example-wheel[cc8,cc9]")
    choices = probe(python)
    show("providers: saxpy's image by device", json.dumps(choices, indent=1))
    expect_choice("providers", choices, 90, "cubin", "sm_90", says="exact")
    expect_choice("providers", choices, 86, "cubin", "sm_80")
    expect_choice("providers", choices, 120, "ptx", "compute_90")
    expect_inspect("providers", kiln, site, ["this device's cubins: kernels.cc9.kiln",
                                             "loads cubin sm_90 (exact match) from kernels.cc9.kiln"])
    status, output = run_status([str(python), "-m", "kiln_example", "--if-gpu"])
    show(f"providers: python -m kiln_example --if-gpu (exit {status})", output)
    for line in ("provider cc8: kernels.cc8.kiln from kiln-example-wheel-cc8 0.1.0",
                 "provider cc9: kernels.cc9.kiln from kiln-example-wheel-cc9 0.1.0"):
        if line not in output:
            fail(f"providers: python -m kiln_example printed no '{line}'")
    # package() compares the providers' stamps with __version__, not with the installed metadata
    # (too slow for a first launch): the two must agree, and the stamps must say what pip installed.
    status, output = run_status([str(python), "-c", "import importlib.metadata as m, kiln_example; "
                                 "print(kiln_example.__version__, m.version('kiln-example-wheel'))"])
    if status != 0 or output.split() != ["0.1.0", "0.1.0"]:
        fail(f"providers: kiln_example.__version__ and the wheel's version differ: {output}")
    for major in (8, 9):
        stamp = (site / "kiln_example" / f"kernels.cc{major}.version").read_text()
        if stamp != f"kiln-example-wheel-cc{major} 0.1.0\n":
            fail(f"providers: kernels.cc{major}.version says {stamp!r}")
    expect_gpu("providers", choices, {8, 9})


def venv_by_provider(args):
    python, _ = make_venv(args.work / "by-provider", with_pip=False)
    pip(python, "--find-links", args.wheels / "dist", "kiln-example-wheel-cc9")
    choices = probe(python)
    expect_choice("by-provider", choices, 90, "cubin", "sm_90")
    expect_choice("by-provider", choices, 86, "error", says="kernels.cc8.kiln, which is not installed")
    expect_gpu("by-provider", choices, {9})


def venv_other_version(args):
    python, site = make_venv(args.work / "other-version", with_pip=False)
    refused = pip(python, "--find-links", args.wheels / "dist", "--find-links", args.wheels / "other-version",
                  "kiln-example-wheel==0.1.0", "kiln-example-wheel-cc9==0.2.0", expect=1)
    show("other-version: pip's resolver", refused)
    if "kiln-example-wheel==0.2.0" not in refused:
        fail("pip refused the provider of another version without naming the version it pins")
    pip(python, "--no-deps", args.wheels / "dist" / "kiln_example_wheel-0.1.0-py3-none-linux_x86_64.whl",
        args.wheels / "other-version" / "kiln_example_wheel_cc9-0.2.0-py3-none-any.whl")
    status, output = run_status([str(python), "-c", "import kiln_example; kiln_example.package()"])
    show(f"other-version: kiln_example.package() (exit {status})", output)
    companion = site / "kiln_example" / "kernels.cc9.kiln"
    expected = (f"ProviderVersionError: {companion} is from kiln-example-wheel-cc9 0.2.0, but kiln-example-wheel is "
                "0.1.0", "pip install 'kiln-example-wheel-cc9==0.1.0'")
    if status == 0 or any(part not in output for part in expected):
        fail(f"a provider of another version must raise ProviderVersionError saying {expected}")
    status, output = run_status([str(python), "-m", "kiln_example", "--if-gpu"])
    if status != 2 or "kiln-example-wheel-cc9 0.2.0" not in output:
        fail("python -m kiln_example with a provider of another version must exit 2 naming it; "
             f"exit {status}:\n{output}")


def venv_another_build(args):
    python, site = make_venv(args.work / "another-build", with_pip=False)
    pip(python, "--no-deps", args.wheels / "dist" / "kiln_example_wheel-0.1.0-py3-none-linux_x86_64.whl",
        args.wheels / "another-build" / "kiln_example_wheel_cc9-0.1.0-py3-none-any.whl")
    choices = probe(python)
    show("another-build: saxpy's image by device", json.dumps(choices, indent=1))
    companion = site / "kiln_example" / "kernels.cc9.kiln"
    expect_choice("another-build", choices, 90, "error", says=f"{companion}, cannot be used: ")
    expect_choice("another-build", choices, 90, "error", says="(from wheels: the provider wheel of the same version")
    if choices["90"][1] != "CORRUPT":
        fail(f"another-build: a companion of another build must be CORRUPT, not {choices['90'][1]}")
    expect_choice("another-build", choices, 120, "ptx", "compute_90")  # PTX serves where no companion is asked
    expect_gpu("another-build", choices, set(), refused=9)


def main():
    parser = argparse.ArgumentParser()
    for option in ("--wheels", "--work"):
        parser.add_argument(option, type=Path, required=True)
    parser.add_argument("--kiln", type=Path)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    venv_main(args, args.kiln)
    venv_providers(args, args.kiln)
    venv_by_provider(args)
    venv_other_version(args)
    venv_another_build(args)
    print("main wheel alone: PTX; with providers: their cubins; another version: refused")


if __name__ == "__main__":
    main()
