"""Argument packing (kiln._arguments), without a GPU: the packer gets parameter sizes directly."""

import ctypes
import struct

import pytest

import kiln
from kiln import _arguments

try:
    import numpy
except ImportError:  # numpy is optional for the binding; its tests say so when skipped
    numpy = None


class DeviceArray:
    """What CuPy arrays, PyTorch tensors and Numba arrays expose."""

    def __init__(self, pointer):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (pointer, False), "version": 3}


def encode(value, size):
    return _arguments.encode("k", 0, value, size)


@pytest.mark.parametrize("value, size, expected", [
    (7, 4, struct.pack("<i", 7)),
    (-1, 4, struct.pack("<i", -1)),
    (0xFFFFFFFF, 4, struct.pack("<I", 0xFFFFFFFF)),      # unsigned range fits too
    (-128, 1, b"\x80"),
    (255, 1, b"\xff"),
    (-2, 2, struct.pack("<h", -2)),
    (1 << 40, 8, struct.pack("<q", 1 << 40)),
    (-(1 << 63), 8, struct.pack("<q", -(1 << 63))),
    (True, 1, b"\x01"),
])
def test_ints_take_the_parameter_size(value, size, expected):
    assert encode(value, size) == expected


@pytest.mark.parametrize("value, size", [(256, 1), (-129, 1), (1 << 32, 4), (-(1 << 31) - 1, 4), (1 << 64, 8)])
def test_an_int_that_does_not_fit_is_refused(value, size):
    with pytest.raises(kiln.ArgumentMismatchError, match="does not fit the %d-byte parameter 0" % size):
        encode(value, size)


def test_an_int_for_a_struct_sized_parameter_is_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match="is an integer but parameter 0 takes 12 bytes"):
        encode(3, 12)


@pytest.mark.parametrize("size, fmt", [(4, "<f"), (8, "<d"), (2, "<e")])
def test_floats_take_the_parameter_size(size, fmt):
    assert encode(1.5, size) == struct.pack(fmt, 1.5)


def test_a_float_too_large_for_float32_is_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match="does not fit the 4-byte float parameter 0"):
        encode(1e300, 4)


def test_a_float_for_a_one_byte_parameter_is_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match="is a float but parameter 0 takes 1 bytes"):
        encode(1.0, 1)


def test_device_arrays_pass_their_data_pointer():
    assert encode(DeviceArray(0x7F0012345600), 8) == struct.pack("<Q", 0x7F0012345600)


class _MemoryPointer:
    def __init__(self, ptr):
        self.ptr = ptr


def cupy_like_array(pointer, interface_pointer):
    """A class named as CuPy's ndarray is (cupy._core.core.ndarray), whose MemoryPointer and array
    interface disagree, to tell which one the packer read."""
    ndarray = type("ndarray", (), {"__module__": "cupy._core.core"})
    array = ndarray()
    array.data = _MemoryPointer(pointer)
    array.__cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (interface_pointer, False),
                                      "version": 3}
    return array


def test_a_cupy_array_passes_the_address_of_its_memory_pointer():
    assert encode(cupy_like_array(0x7F0000001040, 0xBAD), 8) == struct.pack("<Q", 0x7F0000001040)


def test_an_ndarray_of_another_library_passes_its_array_interface():
    array = cupy_like_array(0xBAD, 0x7F0000002000)
    type(array).__module__ = "notcupy"
    assert encode(array, 8) == struct.pack("<Q", 0x7F0000002000)


def test_a_device_array_for_a_four_byte_parameter_is_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match=r"argument 0 \(.*DeviceArray\) is 8 bytes but parameter 0 "
                                                         r"takes 4 \(indices from 0\)"):
        encode(DeviceArray(0x1000), 4)


def test_none_is_a_null_pointer():
    assert encode(None, 8) == bytes(8)


def test_ctypes_values_pass_their_bytes():
    assert encode(ctypes.c_uint16(0xABCD), 2) == struct.pack("<H", 0xABCD)
    assert encode(ctypes.c_float(2.5), 4) == struct.pack("<f", 2.5)
    assert encode(ctypes.c_void_p(0x1234), 8) == struct.pack("<Q", 0x1234)

    class Pair(ctypes.Structure):
        _fields_ = [("first", ctypes.c_int), ("second", ctypes.c_float)]
    assert encode(Pair(3, 0.5), 8) == struct.pack("<if", 3, 0.5)


def test_a_ctypes_value_of_the_wrong_size_is_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match=r"argument 0 \(ctypes.c_double\) is 8 bytes but parameter 0 "
                                                         r"takes 4"):
        encode(ctypes.c_double(1.0), 4)


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
def test_numpy_scalars_pass_their_bytes():
    assert encode(numpy.float32(1.25), 4) == struct.pack("<f", 1.25)
    assert encode(numpy.int16(-3), 2) == struct.pack("<h", -3)
    assert encode(numpy.uint64(5), 8) == struct.pack("<Q", 5)
    assert encode(numpy.array(7, dtype=numpy.int32), 4) == struct.pack("<i", 7)  # a 0-d array


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
@pytest.mark.parametrize("name", sorted(_arguments._NUMPY_SCALARS))
def test_every_numpy_scalar_packed_by_its_type_gives_its_own_bytes(name):
    kind = getattr(numpy, name, None)
    if kind is None:
        pytest.skip("numpy %s has no %s (the other spelling of its bool is tested)" % (numpy.__version__, name))
    for value in (kind(0), kind(1), kind(-1) if name.startswith(("int", "float")) else kind(True)):
        assert encode(value, value.nbytes) == value.tobytes(), (name, value)
        assert _arguments.encode_all("k", None, (value,)) == [value.tobytes()]   # no recorded size: its own


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
def test_a_nan_keeps_its_payload_bits():
    # A signalling NaN would come back quieted from struct's trip through a double.
    for kind, bits, unsigned in ((numpy.float32, 0x7F800001, numpy.uint32), (numpy.float64, 0x7FF0000000000001,
                                                                           numpy.uint64),
                                 (numpy.float16, 0x7C01, numpy.uint16)):
        value = unsigned(bits).view(kind)
        assert encode(value, value.nbytes) == unsigned(bits).tobytes()


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
@pytest.mark.parametrize("kind, unsigned, patterns", [
    ("float16", "uint16", (0x0000, 0x8000, 0x0001, 0x03FF, 0x7BFF, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01, 0x3C00)),
    ("float32", "uint32", (0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
                           0x7FC00000, 0x7F800001, 0xFFC00123, 0x3F800000)),
    ("float64", "uint64", (0, 1 << 63, 1, (1 << 52) - 1, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000,
                           0x7FF8000000000000, 0x7FF0000000000001, 0xFFF8000000000123, 0x3FF0000000000000)),
])
def test_every_kind_of_float_keeps_its_bits(kind, unsigned, patterns):
    # Zeros of both signs, subnormals, the largest finite value, infinities, quiet and signalling
    # NaNs of both signs and with payloads, and one: struct's path and tobytes()'s agree on all.
    for bits in patterns:
        value = getattr(numpy, unsigned)(bits).view(getattr(numpy, kind))
        assert encode(value, value.nbytes) == value.tobytes(), (kind, hex(bits))


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
def test_a_numpy_scalar_of_the_wrong_size_is_refused_by_name():
    with pytest.raises(kiln.ArgumentMismatchError, match=r"argument 0 \(numpy.int32\) is 4 bytes but parameter 0 takes 8"):
        encode(numpy.int32(1), 8)


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
def test_a_numpy_float64_for_a_float_parameter_is_refused():
    # numpy.float64 is a Python float, but it says which C type it is: no silent narrowing.
    with pytest.raises(kiln.ArgumentMismatchError, match=r"\(numpy.float64\) is 8 bytes but parameter 0 takes 4"):
        encode(numpy.float64(1.0), 4)


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: host arrays not tested")
def test_a_host_array_is_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match="is a host array"):
        encode(numpy.zeros(4, dtype=numpy.float32), 8)


def test_other_objects_are_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match=r"argument 0 \(str\) cannot be passed"):
        encode("text", 8)


def test_all_arguments_are_counted():
    blobs = _arguments.encode_all("saxpy", [4, 8, 8, 4], (2.0, DeviceArray(16), DeviceArray(32), 10))
    assert blobs == [struct.pack("<f", 2.0), struct.pack("<Q", 16), struct.pack("<Q", 32), struct.pack("<i", 10)]


def test_too_few_or_too_many_arguments_are_refused():
    with pytest.raises(kiln.ArgumentMismatchError, match="kernel 'saxpy' takes 4 arguments, 3 given"):
        _arguments.encode_all("saxpy", [4, 8, 8, 4], (2.0, None, None))
    with pytest.raises(kiln.ArgumentMismatchError, match="kernel 'saxpy' takes 4 arguments, 5 given"):
        _arguments.encode_all("saxpy", [4, 8, 8, 4], (2.0, None, None, 1, 1))


def test_the_index_of_a_bad_argument_is_named():
    with pytest.raises(kiln.ArgumentMismatchError, match="kernel 'saxpy': argument 3 .* parameter 3"):
        _arguments.encode_all("saxpy", [4, 8, 8, 4], (2.0, None, None, ctypes.c_int64(1)))


def test_arguments_must_be_a_tuple_or_list():
    with pytest.raises(kiln.ArgumentMismatchError, match="the arguments must be a tuple, not int"):
        _arguments.encode_all("k", [4], 5)
    assert _arguments.encode_all("k", [4], [5]) == [struct.pack("<i", 5)]


def test_unrecorded_parameters_need_typed_arguments():
    # Without recorded sizes only values that carry their own size can be packed.
    assert _arguments.encode_all("k", None, (ctypes.c_int8(1), DeviceArray(8))) == [b"\x01", struct.pack("<Q", 8)]
    with pytest.raises(kiln.ArgumentMismatchError, match="the package does not record the kernel's parameters"):
        _arguments.encode_all("k", None, (1,))
    with pytest.raises(kiln.ArgumentMismatchError, match="the package does not record the kernel's parameters"):
        _arguments.encode_all("k", None, (1.0,))


def test_argument_errors_are_type_errors_with_the_runtime_status():
    with pytest.raises(TypeError) as raised:
        encode("text", 8)
    assert raised.value.status_name == "ARGUMENT_MISMATCH" and raised.value.status == 15


def test_the_pointer_array_points_at_each_argument():
    table, data = _arguments.pointer_array([b"\x01\x02", b"\x03\x04\x05\x06", b""])
    pointers = struct.unpack("3P", table)   # what the void** parameter receives: the table's bytes
    assert ctypes.string_at(pointers[0], 2) == b"\x01\x02"
    assert ctypes.string_at(pointers[1], 4) == b"\x03\x04\x05\x06"
    base = ctypes.cast(data, ctypes.c_void_p).value   # the arguments live in `data`, which the caller keeps
    assert all(base <= pointer <= base + len(data) for pointer in pointers)
    assert all(pointer % _arguments._ALIGNMENT == 0 for pointer in pointers)


def test_an_empty_argument_list_gives_an_empty_table():
    table, data = _arguments.pointer_array([])
    assert table == b"" and data == b""
