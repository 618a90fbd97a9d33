"""What Package.image returns, and the ways a device or an architecture may be named."""

import collections
import ctypes
import operator
import re

from . import _abi
from ._errors import InvalidArgumentError

KernelInfo = collections.namedtuple("KernelInfo", ["name", "lowered_name"])


class Image:
    """The image the runtime selected for a kernel on a device, checked and decoded, for another
    loader: ``cuda.core.ObjectCode.from_cubin``/``from_ptx``, ``cuModuleLoadData``, or a file for
    ``cupy.RawModule(path=...)``. Look the kernel up by ``lowered_name``.

    ``data``: the image's bytes (for PTX, the text without a terminating NUL; Python's bytes keep
    a NUL after their end, so the buffer is terminated as cuModuleLoadData needs). ``kind``:
    "cubin" or "ptx". ``target``: "sm_90", "compute_75". ``compute_capability``: the device's, as
    major * 10 + minor. ``description``: why this image ("cubin sm_90 (exact match)")."""

    __slots__ = ("data", "kind", "target", "compute_capability", "kernel_name", "lowered_name", "description")

    def __init__(self, data, kind, target, compute_capability, kernel_name, lowered_name, description):
        self.data = data
        self.kind = kind
        self.target = target
        self.compute_capability = compute_capability
        self.kernel_name = kernel_name
        self.lowered_name = lowered_name
        self.description = description

    @classmethod
    def from_struct(cls, image):
        data = ctypes.string_at(image.data, image.size) if image.size else b""
        kind = _abi.IMAGE_KINDS.get(image.kind, "unknown kind %d" % image.kind)
        if kind == "ptx" and data.endswith(b"\0"):
            data = data[:-1]

        def text(value):
            return value.decode("utf-8", "replace") if value else ""
        return cls(data, kind, text(image.target), image.compute_capability, text(image.kernel_name),
                   text(image.lowered_name), text(image.description))

    @classmethod
    def from_fields(cls, data, kind, compute_capability, target, kernel_name, lowered_name, description):
        """From kiln._native's select_image: the struct's fields read in C (a PTX image's NUL left off)."""
        return cls(data, _abi.IMAGE_KINDS.get(kind, "unknown kind %d" % kind), target, compute_capability,
                   kernel_name, lowered_name, description)

    def __repr__(self):
        return "<kiln.Image %s for %s (%s), %d bytes>" % (self.kind, self.kernel_name, self.description,
                                                          len(self.data))


# ASCII digits only: str.isdigit and a Unicode \d also take "²" (which int() refuses) and "٩٠".
_TARGET = re.compile(r"(?:sm|compute)_([0-9]+)[af]?", re.ASCII)
_NUMBER = re.compile(r"[0-9]+", re.ASCII)
_DOTTED = re.compile(r"([0-9]+)\.([0-9])", re.ASCII)
# The C types these reach: ctypes wraps a larger value silently (2**32 + 90 to 90), so it is refused here.
_UINT32_MAX = 0xFFFFFFFF
_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


def _arch_value(arch):
    """major * 10 + minor as `arch` spells it, or None."""
    if isinstance(arch, (tuple, list)) and len(arch) == 2:
        try:
            major, minor = operator.index(arch[0]), operator.index(arch[1])
        except TypeError:
            return None
        return major * 10 + minor if major >= 1 and 0 <= minor <= 9 else None
    if isinstance(arch, int) and not isinstance(arch, bool):
        return arch
    if isinstance(arch, str):
        text = arch.strip()
        match = _TARGET.fullmatch(text)
        if match:
            return int(match.group(1))
        if _NUMBER.fullmatch(text):
            return int(text)
        match = _DOTTED.fullmatch(text)
        if match:
            return int(match.group(1)) * 10 + int(match.group(2))
    return None


def compute_capability(arch):
    """major * 10 + minor from 90, "90", "sm_90", "sm_90a", "compute_90", "9.0" or (9, 0). Refuses
    what cannot be one (below 10, or too large for a uint32_t); the runtime refuses the rest of what
    is out of range (above 999), naming the kernel."""
    value = _arch_value(arch)
    if value is None or not 10 <= value <= _UINT32_MAX:
        raise InvalidArgumentError("cannot read an architecture from %r: give 90, \"sm_90\", \"9.0\" or (9, 0)"
                                   % (arch,))
    return value


def checked_driver_version(version):
    """`version` as kiln_package_select_image_for_arch takes it: an int (whose form the runtime checks)."""
    try:
        number = None if isinstance(version, bool) else operator.index(version)
    except TypeError:
        number = None
    if number is None or not _INT_MIN <= number <= _INT_MAX:
        raise InvalidArgumentError("driver_version must be an int in cuDriverGetVersion's form (13000 for CUDA 13.0) "
                                   "or 0, not %r" % (version,))
    return number


def device_ordinal(device):
    """A CUDA device ordinal from None (the current device), an int, or a device object
    (CuPy's .id, cuda.core's .device_id)."""
    if device is None:
        return _abi.KILN_CURRENT_DEVICE
    ordinal = None
    if type(device) is int:   # an ordinal, as the binding's own callers pass: no attribute to look for
        ordinal = device
    elif not isinstance(device, bool):
        for attribute in ("device_id", "id"):
            value = getattr(device, attribute, None)
            if isinstance(value, int):
                ordinal = value
                break
        else:
            try:
                ordinal = operator.index(device)
            except TypeError:
                pass
    if ordinal is None:
        raise InvalidArgumentError("not a CUDA device: %r (give an ordinal or a CuPy/cuda.core device)" % (device,))
    if ordinal < 0:
        raise InvalidArgumentError("no CUDA device %d: ordinals start at 0" % ordinal)
    if ordinal > _INT_MAX:
        raise InvalidArgumentError("no CUDA device %d: an ordinal is a C int" % ordinal)
    return ordinal
