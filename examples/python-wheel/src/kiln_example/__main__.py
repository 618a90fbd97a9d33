"""Self-check: python -m kiln_example [--if-gpu]

Lists the package the wheel ships (its kernels and targets). Where a GPU exists, runs every kernel by
every route (Kiln's binding, CuPy, cuda.core) on CuPy arrays and checks the results against numpy,
one line per check. Nothing is compiled: every route loads the image the wheel carries.

Exit status: 0 every check passed; 1 a result differs; 2 setup failed: no GPU (unless --if-gpu),
CuPy or cuda.core not installed, the package or runtime library missing. With --if-gpu a machine
without a usable GPU is not a failure: the package is listed, the reason printed, and the status is 0.
Listing needs only the standard library: no numpy, CuPy or driver.
"""
import sys
from importlib import resources

from . import PACKAGE_FILE, _providers, kiln, package
from .checks import run_checks


def _list(pkg):
    print(f"package  {PACKAGE_FILE}")
    print(f"kiln     binding {kiln.__version__}, runtime {kiln.runtime_version()} ({kiln.runtime_library_path()})")
    for name in pkg.kernel_names:
        print(f"kernel   {name}")
    for target in pkg.targets:
        print(f"target   {target}")
    with resources.as_file(PACKAGE_FILE) as path:
        for major, file, name, version in _providers.installed(path.parent):
            print(f"provider cc{major}: {file.name} from {name or 'no installed wheel'} {version or ''}".rstrip())


def main(argv):
    if_gpu = "--if-gpu" in argv[1:]
    try:
        pkg = package()
        _list(pkg)
    except (kiln.KilnError, _providers.ProviderVersionError) as error:  # missing, damaged, mismatched
        print(f"kiln_example: {error}", file=sys.stderr)
        return 2
    # Asking for a kernel loads the driver: where there is none (or no GPU) the binding says why.
    try:
        pkg.kernel("saxpy")
    except (kiln.NoDriverError, kiln.NoDeviceError) as error:
        print(f"no GPU: {error}")
        return 0 if if_gpu else 2
    except kiln.KilnError as error:  # e.g. no image in the package runs on this GPU
        print(f"kiln_example: {error}", file=sys.stderr)
        return 2
    for name in pkg.kernel_names:
        print(f"image    {name}: {pkg.image(name).description}")
    return run_checks()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
