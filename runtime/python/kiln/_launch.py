"""Launch geometry and streams given the ways Python code holds them."""

import operator

from . import _abi
from ._errors import InvalidArgumentError

_UINT32_MAX = 0xFFFFFFFF
_ONES = (1, 1, 1)


def dim3(kernel, what, value):
    """A kiln_dim3 from an int or a tuple of 1 to 3 ints (missing ones are 1)."""
    # Plain ints in range, the usual case, without the checks' general path.
    if type(value) is int and 1 <= value <= _UINT32_MAX:
        return _abi.Dim3(value, 1, 1)
    if type(value) is tuple and 1 <= len(value) <= 3 and all(type(v) is int and 1 <= v <= _UINT32_MAX for v in value):
        return _abi.Dim3(*value, *_ONES[len(value):])
    values = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(values) <= 3:
        raise InvalidArgumentError("kernel '%s': %s must be an int or 1 to 3 ints, not %r" % (kernel, what, value))
    try:
        numbers = [operator.index(v) for v in values]
    except TypeError:
        raise InvalidArgumentError("kernel '%s': %s must be an int or 1 to 3 ints, not %r" % (kernel, what, value)) from None
    if not all(1 <= n <= _UINT32_MAX for n in numbers):
        raise InvalidArgumentError("kernel '%s': every %s dimension must be at least 1, not %r" % (kernel, what, value))
    numbers += [1] * (3 - len(numbers))
    return _abi.Dim3(*numbers)


def stream_handle(kernel, stream):
    """The CUstream (an int, or None for the default stream) of None, an int handle, or a stream
    object: the __cuda_stream__ protocol (cuda.core, CuPy), then .ptr (CuPy), then .handle."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream or None
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1]) or None
    for attribute in ("ptr", "handle"):
        handle = getattr(stream, attribute, None)
        if handle is not None:
            return int(handle) or None
    raise InvalidArgumentError("kernel '%s': cannot find a CUstream in %r: give None, an int, or an object with "
                               "__cuda_stream__, .ptr or .handle" % (kernel, stream))


def shared_bytes(kernel, value):
    try:
        number = operator.index(value)
    except TypeError:
        number = -1
    if not 0 <= number <= _UINT32_MAX:
        raise InvalidArgumentError("kernel '%s': shared_mem must be a byte count, not %r" % (kernel, value))
    return number



def cluster(kernel, value):
    """The cluster dimensions as a kiln_dim3: None (no cluster) or an int or 1 to 3 ints, each at
    least 1 (missing ones are 1)."""
    if value is None:
        return _abi.Dim3(0, 0, 0)
    return dim3(kernel, "cluster", value)


def priority(kernel, value):
    """(has_priority, priority) for kiln_launch_config: None is no priority."""
    if value is None:
        return 0, 0
    try:
        number = operator.index(value)
    except TypeError:
        number = None
    if number is None or isinstance(value, bool) or not -(1 << 31) <= number < (1 << 31):
        raise InvalidArgumentError("kernel '%s': priority must be None or an int, not %r" % (kernel, value))
    return 1, number


def byte_count(kernel, what, value):
    """A size_t byte count (shared memory for occupancy queries)."""
    try:
        number = operator.index(value)
    except TypeError:
        number = -1
    if number < 0 or number >= 1 << 64:
        raise InvalidArgumentError("kernel '%s': %s must be a byte count, not %r" % (kernel, what, value))
    return number


def int_at_least(kernel, what, value, minimum):
    try:
        number = operator.index(value)
    except TypeError:
        number = None
    if number is None or isinstance(value, bool) or not minimum <= number < (1 << 31):
        raise InvalidArgumentError("kernel '%s': %s must be an int of at least %d, not %r"
                                   % (kernel, what, minimum, value))
    return number
