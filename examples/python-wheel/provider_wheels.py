"""Packs the companions of a split Kiln package into provider wheels, one per GPU architecture family.

    provider_wheels.py --package BUILD/kernels.kiln --kiln KILN --distribution kiln-example-wheel
                       --version 0.1.0 --install-as kiln_example/kernels.kiln --out DIST [--variant-names]

`kiln split` left the main file (index, PTX) and `<stem>.cc<major>.kiln` beside it; the main wheel
ships the main file, and this writes `<distribution>-cc<major>`, a wheel holding only
`<install-as's directory>/<stem>.cc<major>.kiln`, for each companion the main file lists:

  - it installs into the main wheel's package directory (the runtime finds companions beside the
    main file), so it is `Root-Is-Purelib: false`: platlib, where the main wheel's files go, which is
    not purelib on every system (lib64 on Fedora);
  - it is tagged py3-none-any: a cubin is for the GPU, whatever the host's OS or CPU;
  - `Requires-Dist: <distribution>==<version>`: pip installs it with the main wheel of its own version
    only (`pip install <distribution>-cc9` brings the main wheel; the main wheel's extras bring it);
  - `*.dist-info/variant.json` holds its PEP 825 variant metadata, label `cc<major>`, properties
    `nvidia :: sm_arch :: <cc>_real` for its cubins' targets, spelled as NVIDIA's variant provider
    offers them (`90_real`; `sm_90a` and `sm_100f` run on 9.0 and 10.x, so they are `90_real` and
    `100_real`: the provider has no spelling for arch-specific targets). With --variant-names the file
    name carries the label as PEP 825 says (`...-py3-none-any-cc9.whl`), for a variant-aware index;
    pip refuses such names today ("not a valid wheel filename"), so the default is the plain name.

The wheels are the same bytes for the same companions: entries sorted, dated 1980-01-01. A provider
of this version that an earlier build wrote into --out and this one did not (the build lost a family)
is removed, as `kiln split` removes a stale companion: uploading the directory uploads this build.
"""
import argparse
import base64
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

# PEP 825's variant.json format, version 0.1.1 (the URL the PEP's schema gives as its $id).
VARIANT_SCHEMA = "https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json"
WHEEL_DATE = (1980, 1, 1, 0, 0, 0)


def inspect(kiln, path):
    """`kiln inspect --json`: the file's metadata and targets."""
    result = subprocess.run([str(kiln), "inspect", "--json", str(path)], stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"provider_wheels: kiln inspect {path} exited {result.returncode}")
    return json.loads(result.stdout)


def sm_arch_values(targets, major):
    """The `nvidia :: sm_arch` values of a companion's cubins: sm_90 and sm_90a -> 90_real."""
    values = set()
    for target in targets:
        match = re.fullmatch(r"sm_([0-9]+)[af]?", target)
        if match and int(match[1]) // 10 == major:
            values.add(f"{match[1]}_real")
    return sorted(values)  # PEP 825: "sets of feature values, converted to lists and sorted lexically"


def variant_json(label, values):
    return {"$schema": VARIANT_SCHEMA, "default-priorities": {"namespace": ["nvidia"]},
            "variants": {label: {"nvidia": {"sm_arch": values}}}}


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(path, files):
    """A wheel of `files` (name -> bytes), its RECORD last, as the wheel spec orders it."""
    dist_info = next(name.split("/")[0] for name in files if name.endswith(".dist-info/METADATA"))
    record_name = f"{dist_info}/RECORD"
    lines = [record_line(name, files[name]) for name in sorted(files)] + [f"{record_name},,"]
    entries = dict(files, **{record_name: ("\n".join(lines) + "\n").encode()})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(entries, key=lambda n: (n == record_name, n)):
            info = zipfile.ZipInfo(name, WHEEL_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, entries[name])


def provider_wheel(args, major, companion, targets):
    distribution = f"{args.distribution}-cc{major}"
    normalized = re.sub(r"[-_.]+", "_", distribution).lower()
    values = sm_arch_values(targets, major)
    if not values:
        sys.exit(f"provider_wheels: {companion} holds no cubin of compute capability {major}.x")
    directory, stem = args.install_as.parent.as_posix(), args.install_as.name.removesuffix(".kiln")
    dist_info = f"{normalized}-{args.version}.dist-info"
    cubins = ", ".join(f"sm_{v.removesuffix('_real')}" for v in values)
    metadata = (f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {args.version}\n"
                f"Summary: {args.distribution}'s cubins for GPUs of compute capability {major}.x ({cubins})\n"
                f"Requires-Dist: {args.distribution}=={args.version}\n")
    wheel = ("Wheel-Version: 1.0\nGenerator: kiln provider_wheels.py\nRoot-Is-Purelib: false\n"
             "Tag: py3-none-any\n")
    files = {
        f"{directory}/{stem}.cc{major}.kiln": companion.read_bytes(),
        # Read by the package's _providers.check at its first open, without importlib.metadata.
        f"{directory}/{stem}.cc{major}.version": f"{distribution} {args.version}\n".encode(),
        f"{dist_info}/METADATA": metadata.encode(),
        f"{dist_info}/WHEEL": wheel.encode(),
        f"{dist_info}/variant.json": (json.dumps(variant_json(f"cc{major}", values), indent=2) + "\n").encode(),
    }
    label = f"-cc{major}" if args.variant_names else ""
    path = args.out / f"{normalized}-{args.version}-py3-none-any{label}.whl"
    write_wheel(path, files)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", type=Path, required=True, help="the split package's main file")
    parser.add_argument("--kiln", type=Path, required=True, help="Kiln's generator, for kiln inspect")
    parser.add_argument("--distribution", required=True, help="the main wheel's distribution name")
    parser.add_argument("--version", required=True, help="the main wheel's version, which the providers pin")
    parser.add_argument("--install-as", type=Path, required=True,
                        help="the main file's path in the main wheel, e.g. kiln_example/kernels.kiln")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--variant-names", action="store_true", help="PEP 825 file names: ...-any-cc9.whl")
    args = parser.parse_args()
    args.distribution = re.sub(r"[-_.]+", "-", args.distribution).lower()  # the name as pip shows it

    split = inspect(args.kiln, args.package).get("metadata", {}).get("split.files")
    if split is None:
        sys.exit(f"provider_wheels: {args.package} is not the main file of a split package (kiln split)")
    args.out.mkdir(parents=True, exist_ok=True)
    stem = str(args.package).removesuffix(".kiln")
    written = []
    for tag in split.split():
        companion = Path(f"{stem}.{tag}.kiln")
        path = provider_wheel(args, int(tag.removeprefix("cc")), companion, inspect(args.kiln, companion)["targets"])
        written.append(path)
        print(f"provider_wheels: {path.name} ({path.stat().st_size} bytes)")
    normalized = re.sub(r"[-_.]+", "_", args.distribution).lower()
    # Only names of this run's kind: a directory may hold both plain and --variant-names wheels.
    label = r"-cc[0-9]+" if args.variant_names else ""
    for stale in set(args.out.glob(f"{normalized}_cc*-{args.version}-py3-none-any*.whl")) - set(written):
        if re.fullmatch(rf"{re.escape(normalized)}_cc[0-9]+-{re.escape(args.version)}-py3-none-any{label}\.whl",
                        stale.name):
            stale.unlink()
            print(f"provider_wheels: removed {stale.name}, a family this build does not have")


if __name__ == "__main__":
    main()
