"""wheel_windows: the example wheel for Windows, py3-none-win_amd64, made here from the Linux one
(wheel_build) and the runtime cross-built for Windows (build/windows): the same kiln_example/
package, kernels.kiln and binding, with kiln.dll where libkiln.so.0 was. Nothing in the wheel is a
CPython extension or compiled for Python, so only the runtime library and the tag differ.

    build_windows_wheel.py --linux-wheel FILE --dll kiln.dll --work DIR --dist DIR

`wheel unpack` checks the Linux wheel's RECORD, `wheel pack` writes the new RECORD and names the
file from the WHEEL tag. The result is then read back and checked: its name and tag, kiln.dll
beside the binding (a PE file for x86-64 that imports no MinGW runtime DLL), no libkiln.so*,
kernels.kiln identical to the Linux wheel's, and every RECORD hash right. Not run on Windows: no
Windows CPython can be had here (docs/python.md).
"""
import argparse
import base64
import csv
import hashlib
import io
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

from wheel_support import fail

TAG = "py3-none-win_amd64"


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "sha256=" + digest


def pe_machine(data):
    """The COFF machine field of a PE file, or None."""
    if data[:2] != b"MZ" or len(data) < 0x40:
        return None
    offset = struct.unpack_from("<I", data, 0x3C)[0]
    if data[offset:offset + 4] != b"PE\0\0":
        return None
    return struct.unpack_from("<H", data, offset + 4)[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--linux-wheel", type=Path, required=True)
    parser.add_argument("--dll", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--dist", type=Path, required=True)
    args = parser.parse_args()
    for path, what in ((args.linux_wheel, "the Linux wheel (wheel_build)"), (args.dll, "kiln.dll (build/windows)")):
        if not path.is_file():
            fail("%s is missing: %s" % (what, path))

    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "wheel", "unpack", "--dest", str(args.work), str(args.linux_wheel)], check=True)
    (unpacked,) = list(args.work.iterdir())
    runtime_dir = unpacked / "kiln_example" / "_kiln"
    for library in runtime_dir.glob("libkiln.so*"):
        library.unlink()
    shutil.copy(args.dll, runtime_dir / "kiln.dll")
    (info,) = list(unpacked.glob("*.dist-info"))
    wheel_file = info / "WHEEL"
    lines = [line for line in wheel_file.read_text().splitlines() if line.strip() and not line.startswith("Tag:")]
    wheel_file.write_text("\n".join(lines + ["Tag: " + TAG]) + "\n")

    shutil.rmtree(args.dist, ignore_errors=True)
    args.dist.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "wheel", "pack", "--dest-dir", str(args.dist), str(unpacked)], check=True)
    built = list(args.dist.glob("*.whl"))
    if len(built) != 1 or not built[0].name.endswith("-" + TAG + ".whl"):
        fail("expected one %s wheel in %s, found %s" % (TAG, args.dist, [p.name for p in built]))

    # Read back what a Windows pip would install.
    with zipfile.ZipFile(built[0]) as whl, zipfile.ZipFile(args.linux_wheel) as linux:
        names = whl.namelist()
        if "kiln_example/_kiln/kiln.dll" not in names:
            fail("no kiln_example/_kiln/kiln.dll in %s: %s" % (built[0].name, names))
        if any("libkiln.so" in name for name in names):
            fail("%s still holds a Linux runtime library" % built[0].name)
        if whl.read("kiln_example/kernels.kiln") != linux.read("kiln_example/kernels.kiln"):
            fail("kernels.kiln differs from the Linux wheel's: the package is the same file on every system")
        dll = whl.read("kiln_example/_kiln/kiln.dll")
        if pe_machine(dll) != 0x8664:
            fail("kiln_example/_kiln/kiln.dll is not a PE file for x86-64")
        for forbidden in (b"libstdc++-6.dll", b"libgcc_s_seh-1.dll", b"libwinpthread-1.dll"):
            if forbidden in dll:
                fail("kiln.dll names %s: the MinGW runtime must be linked in" % forbidden.decode())
        wheel_text = whl.read("%s/WHEEL" % info.name).decode()
        if "Tag: %s\n" % TAG not in wheel_text or "linux" in wheel_text:
            fail("WHEEL tags are not %s alone:\n%s" % (TAG, wheel_text))
        record = list(csv.reader(io.StringIO(whl.read("%s/RECORD" % info.name).decode())))
        recorded = {row[0] for row in record}
        for row in record:
            name, digest, size = row
            if name.endswith("/RECORD"):
                continue
            data = whl.read(name)
            if digest != record_hash(data) or int(size) != len(data):
                fail("RECORD is wrong for %s" % name)
        if set(names) != recorded:
            fail("RECORD and the archive differ: %s" % sorted(set(names) ^ recorded))
    print("wheel_windows: %s: %d files, kiln.dll %d bytes, kernels.kiln as on Linux" % (built[0].name, len(names), len(dll)))


if __name__ == "__main__":
    main()
