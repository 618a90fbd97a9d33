"""The provider wheels installed beside this package: their files and versions.

Built split, this wheel ships ``kernels.kiln`` (the kernels' index and PTX) and each provider wheel,
``kiln-example-wheel-cc<major>``, one file beside it, ``kernels.cc<major>.kiln``: the cubins of one
GPU architecture family. Kiln's runtime finds that file by itself (a cubin for the device's exact
architecture, else one of its family, else the PTX, which the driver compiles) and refuses a file
of another build. This module adds what the runtime cannot see, the wheels' versions: a provider of
another version than this package is refused here, naming both, before any kernel is asked for.
pip keeps them together (each provider pins ``kiln-example-wheel==<its version>``); this catches
what pip was told to ignore (--no-deps, --force-reinstall of one of them, a copied file).
"""
import os
import re
from importlib import metadata

# pyproject.toml's name; provider_wheels.py names each provider <this>-cc<major>.
DISTRIBUTION = "kiln-example-wheel"
_COMPANION = re.compile(r"kernels\.cc([0-9]+)\.kiln")
# Each provider wheel also installs kernels.cc<major>.version, one line: "<distribution> <version>".
_STAMP = re.compile(r"kernels\.cc([0-9]+)\.version")


class ProviderVersionError(RuntimeError):
    """A provider wheel of another version than this package is installed."""


def own_version(fallback):
    """This package's installed version; `fallback` (``__version__``) where no metadata says (a
    source tree on sys.path)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return fallback


def installed(directory):
    """[(major, path, distribution, version)] for each companion file in `directory`; distribution
    and version are None for a file no installed distribution is named for (copied by hand: the
    runtime still checks that it is of this build)."""
    found = []
    for path in sorted(directory.iterdir()):
        match = _COMPANION.fullmatch(path.name)
        if not match:
            continue
        name = f"{DISTRIBUTION}-cc{match[1]}"
        try:
            found.append((int(match[1]), path, name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            found.append((int(match[1]), path, None, None))
    return found


def stamps(directory):
    """The names of the providers' stamps in `directory`, sorted: one listing and string tests (a
    regular expression's first match per name, or os.scandir's entries, cost more than the listing)."""
    return sorted(name for name in os.listdir(directory)
                  if name.startswith("kernels.cc") and name.endswith(".version") and _STAMP.fullmatch(name))


def check(directory, version, found=None):
    """Raises ProviderVersionError for a provider wheel of another version than `version` (this
    package's __version__, which pyproject.toml's version matches). Reads the providers' stamps
    (`found`, from stamps(directory), which it lists when None) and a line per provider, where
    importlib.metadata (installed() above) would scan all of sys.path, in milliseconds. A stamp that
    cannot be read is passed over: the runtime still refuses a companion of another build."""
    if found is None:
        found = stamps(directory)
    for stamp_name in found:
        stamp_path = os.path.join(directory, stamp_name)
        major = int(_STAMP.fullmatch(stamp_name)[1])
        try:
            with open(stamp_path, encoding="utf-8") as stamp:
                name, its_version = stamp.read(256).split()
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        path = os.path.join(directory, f"kernels.cc{major}.kiln")
        if its_version != version:
            raise ProviderVersionError(
                f"{path} is from {name} {its_version}, but {DISTRIBUTION} is {version}: a provider wheel "
                f"must be of the same version as {DISTRIBUTION} (its cubins are of that build). Install "
                f"the matching one: pip install '{name}=={version}' (or '{DISTRIBUTION}[cc{major}]=={version}')")
