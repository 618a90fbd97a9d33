"""Packs Python launch arguments into the bytes of each kernel parameter.

The package records each parameter's size (from the cubin), not its type, so a value is encoded
by what it is and checked against that size, like kiln::Kernel::launch checks sizeof():
  device arrays (__cuda_array_interface__), cuda.core Buffers, None -> an 8-byte pointer
  numpy scalars, 0-d arrays and ctypes values -> their own bytes (the size must match)
  int   -> a signed or unsigned integer of the parameter's size (1, 2, 4 or 8 bytes)
  float -> float32 for a 4-byte parameter, float64 for 8, float16 for 2
A Python int for a float parameter is packed as an integer: pass 2.0 or numpy.float32(2).
"""

import ctypes
import struct

from ._errors import ArgumentMismatchError

_POINTER_SIZE = ctypes.sizeof(ctypes.c_void_p)
_FLOAT_FORMATS = {2: "<e", 4: "<f", 8: "<d"}
_FLOAT_PACKERS = {size: struct.Struct(form).pack for size, form in _FLOAT_FORMATS.items()}
_ALIGNMENT = 16   # each argument's bytes start at a multiple of this in pointer_array's buffer
_CTYPES_DATA = (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array)


def _type_name(value):
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else "%s.%s" % (kind.__module__, kind.__name__)


def _cupy_pointer(value):
    return value.data.ptr   # the address of the array's first element, a view's offset included


def _device_pointer(value):
    """The device address an argument stands for, or None if it is not a device buffer."""
    kind = type(value)
    # A CuPy array straight from its MemoryPointer: its __cuda_array_interface__ builds a dict each
    # time (about 10 us on an H200's host), and its data[0] is the same address.
    if kind.__name__ == "ndarray" and kind.__module__.partition(".")[0] == "cupy":
        return _cupy_pointer(value)
    interface = getattr(value, "__cuda_array_interface__", None)
    if interface is not None:
        return int(interface["data"][0])
    # cuda.core's Buffer has no array interface; its handle is the CUdeviceptr.
    if type(value).__module__.startswith("cuda.core") and type(value).__name__.endswith("Buffer"):
        return int(value.handle)
    return None


def _own_bytes(value):
    """The bytes of a value that carries its own C type (ctypes, numpy scalars), else None."""
    if isinstance(value, _CTYPES_DATA):
        return ctypes.string_at(ctypes.addressof(value), ctypes.sizeof(value))
    if hasattr(value, "dtype") and hasattr(value, "tobytes") and getattr(value, "ndim", 0) == 0:
        return value.tobytes()
    return None


class _Argument:
    """One argument being packed, for messages that name the kernel, index and value."""

    def __init__(self, kernel, index, value):
        self.kernel, self.index, self.value = kernel, index, value

    def mismatch(self, why):
        return ArgumentMismatchError("kernel '%s': argument %d (%s) %s (indices from 0)"
                                     % (self.kernel, self.index, _type_name(self.value), why))

    def sized(self, data, size):
        if size is not None and len(data) != size:
            raise self.mismatch("is %d bytes but parameter %d takes %d" % (len(data), self.index, size))
        return data

    def integer(self, value, size):
        if size is None:
            raise self.mismatch("has no fixed size and the package does not record the kernel's "
                                "parameters: pass a numpy scalar or a ctypes value")
        if size not in (1, 2, 4, 8):
            raise self.mismatch("is an integer but parameter %d takes %d bytes" % (self.index, size))
        bits = 8 * size
        if not -(1 << (bits - 1)) <= value < (1 << bits):
            raise self.mismatch("= %d does not fit the %d-byte parameter %d" % (value, size, self.index))
        return (value & ((1 << bits) - 1)).to_bytes(size, "little")

    def real(self, value, size):
        if size is None:
            raise self.mismatch("has no fixed size and the package does not record the kernel's "
                                "parameters: pass a numpy scalar or a ctypes value")
        if size not in _FLOAT_FORMATS:
            raise self.mismatch("is a float but parameter %d takes %d bytes" % (self.index, size))
        try:
            return struct.pack(_FLOAT_FORMATS[size], value)
        except OverflowError:
            raise self.mismatch("= %r does not fit the %d-byte float parameter %d"
                                % (value, size, self.index)) from None


def _exact_float(pack):
    """pack for a numpy float scalar: struct converts through a double, exact for every value but a
    NaN, whose payload bits (a signalling NaN's) the conversion may change: those go by tobytes()."""
    def packer(value):
        return pack(value) if value == value else value.tobytes()
    return packer


# numpy's fixed-size scalar types by name (numpy is not imported here): (size, pack), which gives the
# bytes tobytes() gives, in a fraction of the time a first tobytes() takes.
_NUMPY_SCALARS = {name: (struct.calcsize(form), pack) for name, form, pack in [
    (name, form, _exact_float(struct.Struct(form).pack) if form in ("<e", "<f", "<d") else struct.Struct(form).pack)
    for name, form in (("float16", "<e"), ("float32", "<f"), ("float64", "<d"), ("int8", "<b"), ("int16", "<h"),
                       ("int32", "<i"), ("int64", "<q"), ("uint8", "<B"), ("uint16", "<H"), ("uint32", "<I"),
                       ("uint64", "<Q"), ("bool", "<?"), ("bool_", "<?"))]}


def _packer_for(kind):
    """A function that packs any value of type `kind` by its type alone (numpy's fixed-size scalars,
    CuPy arrays), or None when the type does not decide the bytes: such types take encode's general
    path, which also words every error."""
    module = kind.__module__
    if module == "numpy":
        return _NUMPY_SCALARS.get(kind.__name__)
    if kind.__name__ == "ndarray" and module.partition(".")[0] == "cupy":
        return _POINTER_SIZE, _cupy_pointer_bytes
    return None


def _cupy_pointer_bytes(value):
    return _cupy_pointer(value).to_bytes(_POINTER_SIZE, "little")


# type -> (size, pack) for the types _packer_for knows, filled as they are first seen.
_PACKERS = {}


def encode(kernel, index, value, size):
    """The bytes of argument `index` for a parameter of `size` bytes (None: not recorded)."""
    # A plain Python float or int (not a numpy scalar or a bool, whose types differ) that fits: the
    # bytes the general path below gives it, without looking for a device buffer or a type first.
    kind = type(value)
    if kind is float and size in _FLOAT_PACKERS:
        try:
            return _FLOAT_PACKERS[size](value)
        except OverflowError:
            pass  # the general path words the error
    elif kind is int and size in (1, 2, 4, 8) and -(1 << (8 * size - 1)) <= value < (1 << (8 * size)):
        return (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    else:
        known = _PACKERS.get(kind)
        if known is None:
            known = _packer_for(kind)
            if known is not None:  # only these: numpy's and CuPy's types are few, a program's own may not be
                _PACKERS[kind] = known
        if known is not None and (size is None or size == known[0]):
            return known[1](value)
    return _encode_general(kernel, index, value, size)


def _encode_general(kernel, index, value, size):
    argument = _Argument(kernel, index, value)
    pointer = 0 if value is None else _device_pointer(value)
    if pointer is not None:
        return argument.sized(pointer.to_bytes(_POINTER_SIZE, "little"), size)
    data = _own_bytes(value)
    if data is not None:
        return argument.sized(data, size)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        raise argument.mismatch("is a host array: pass a device array (one with __cuda_array_interface__)")
    if isinstance(value, float):
        return argument.real(value, size)
    if isinstance(value, int) or hasattr(value, "__index__"):
        return argument.integer(value.__index__(), size)
    raise argument.mismatch("cannot be passed: give an int, a float, a numpy scalar, a ctypes value or a "
                            "device array")


def encode_all(kernel, param_sizes, args):
    """The bytes of every argument. `param_sizes` is None when the package does not record them."""
    if not isinstance(args, (tuple, list)):
        raise ArgumentMismatchError("kernel '%s': the arguments must be a tuple, not %s" % (kernel, _type_name(args)))
    if param_sizes is not None and len(args) != len(param_sizes):
        raise ArgumentMismatchError("kernel '%s' takes %d arguments, %d given" % (kernel, len(param_sizes), len(args)))
    sizes = param_sizes if param_sizes is not None else [None] * len(args)
    return [encode(kernel, index, value, size) for index, (value, size) in enumerate(zip(args, sizes))]


_PADDING = tuple(bytes(n) for n in range(_ALIGNMENT))


def pointer_array(blobs):
    """The void*[] cuLaunchKernel takes, and what keeps it alive until the launch returns (keep it).

    Every argument's bytes go into one bytes object, each at a multiple of _ALIGNMENT from its start
    (CPython aligns that start to 16 bytes), and the table of their addresses into a second one, which
    is what is returned for the void** parameter (ctypes passes a bytes object as its buffer's
    address). No ctypes array type is made: ctypes makes each type once, in tens of microseconds,
    which a first launch would pay for every new size."""
    at = 0
    parts, offsets = [], []
    for blob in blobs:
        pad = -at % _ALIGNMENT
        if pad:
            parts.append(_PADDING[pad])
            at += pad
        offsets.append(at)
        parts.append(blob)
        at += len(blob)
    data = b"".join(parts)
    base = ctypes.cast(data, ctypes.c_void_p).value or 0
    table = _POINTER_TABLE.get(len(offsets)) or struct.Struct("%dP" % len(offsets))
    pointers = table.pack(*[base + offset for offset in offsets])
    return pointers, data


# Packers of the pointer table for the usual argument counts: made once, with the binding's other
# C types.
_POINTER_TABLE = {count: struct.Struct("%dP" % count) for count in range(17)}
