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

    def __repr__(self):
        return "<kiln.Image %s for %s (%s), %d bytes>" % (self.kind, self.kernel_name, self.description,
                                                          len(self.data))


_TARGET = re.compile(r"^(?:sm|compute)_(\d+)[af]?$")
_DOTTED = re.compile(r"^(\d+)\.(\d)$")


def compute_capability(arch):
    """major * 10 + minor from 90, "90", "sm_90", "sm_90a", "compute_90", "9.0" or (9, 0)."""
    if isinstance(arch, (tuple, list)) and len(arch) == 2:
        try:
            major, minor = operator.index(arch[0]), operator.index(arch[1])
        except TypeError:
            major = minor = -1
        if major >= 1 and 0 <= minor <= 9:
            return major * 10 + minor
    elif isinstance(arch, int) and not isinstance(arch, bool):
        if arch >= 10:
            return arch
    elif isinstance(arch, str):
        text = arch.strip()
        match = _TARGET.match(text)
        if match or text.isdigit():
            value = int(match.group(1) if match else text)
            if value >= 10:
                return value
        match = _DOTTED.match(text)
        if match:
            return int(match.group(1)) * 10 + int(match.group(2))
    raise InvalidArgumentError("cannot read an architecture from %r: give 90, \"sm_90\", \"9.0\" or (9, 0)" % (arch,))


def device_ordinal(device):
    """A CUDA device ordinal from None (the current device), an int, or a device object
    (CuPy's .id, cuda.core's .device_id)."""
    if device is None:
        return _abi.KILN_CURRENT_DEVICE
    for attribute in ("device_id", "id"):
        value = getattr(device, attribute, None)
        if isinstance(value, int):
            return value
    try:
        ordinal = operator.index(device)
    except TypeError:
        raise InvalidArgumentError("not a CUDA device: %r (give an ordinal or a CuPy/cuda.core device)"
                                   % (device,)) from None
    if ordinal < 0:
        raise InvalidArgumentError("no CUDA device %d: ordinals start at 0" % ordinal)
    return ordinal
