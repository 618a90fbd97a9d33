"""kiln._native (runtime/python/native/native.c), the binding's first-launch calls in C, without a
GPU: it packs exactly the bytes the Python path packs, declines (NotImplemented) everything the
Python path must pack or word, and is found, refused and turned off as _library says.

tests/python/CMakeLists.txt points $KILN_PYTHON_NATIVE at the module it built; KILN_TEST_NATIVE=0
says this build made none (Windows, KILN_BUILD_PYTHON_NATIVE=OFF, a sanitizer build)."""

import ctypes
import math
import os
import struct

import pytest

import kiln
from kiln import _arguments, _library

from test_arguments import DeviceArray, cupy_like_array

try:
    import numpy
except ImportError:  # numpy is optional for the binding; its tests say so when skipped
    numpy = None

if os.environ.get("KILN_TEST_NATIVE") == "0":
    pytest.skip("this build has no kiln._native (KILN_TEST_NATIVE=0)", allow_module_level=True)


@pytest.fixture(scope="module")
def native():
    module = _library.runtime().native
    assert module is not None, "the binding did not load $KILN_PYTHON_NATIVE=%s" % os.environ.get("KILN_PYTHON_NATIVE")
    assert os.path.samefile(module.__file__, os.environ["KILN_PYTHON_NATIVE"])
    return module


def python_slots(sizes, args):
    """Each argument's bytes as the Python path lays them out (pointer_array), cut to its size."""
    blobs = _arguments.encode_all("k", sizes, args)
    _, data = _arguments.pointer_array(blobs)
    at, slots = 0, []
    for blob in blobs:
        at += -at % _arguments._ALIGNMENT
        slots.append(data[at:at + len(blob)])
        at += len(blob)
    return slots


def native_slots(native, sizes, args):
    packed = native.pack(sizes, args)
    assert packed is not NotImplemented, (sizes, args)
    data, offsets = packed
    assert all(offset % _arguments._ALIGNMENT == 0 for offset in offsets)
    return [data[offset:offset + size] for offset, size in zip(offsets, sizes)]


INTEGERS = [(value, size) for size in (1, 2, 4, 8) for value in
            (0, 1, -1, 7, -(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1, (1 << (8 * size)) - 1)]
FLOATS = [(value, size) for size in (4, 8) for value in
          (0.0, -0.0, 1.5, -2.25, 1e-45, 5e-324, 3.4028234663852886e38, math.inf, -math.inf, 0.1, 1e30)]


@pytest.mark.parametrize("value, size", INTEGERS + FLOATS)
def test_python_numbers_pack_as_the_python_path_packs_them(native, value, size):
    assert native_slots(native, [size], (value,)) == python_slots([size], (value,))


def test_a_cupy_array_packs_its_memory_pointer(native):
    args = (cupy_like_array(0x7F0000001040, 0xBAD), cupy_like_array((1 << 64) - 16, 0xBAD))
    assert native_slots(native, [8, 8], args) == python_slots([8, 8], args)
    assert native_slots(native, [8], args[:1]) == [struct.pack("<Q", 0x7F0000001040)]


def test_a_launch_of_many_kinds_packs_every_slot(native):
    sizes = [4, 8, 8, 4, 1, 2, 8]
    args = [2.0, cupy_like_array(0x1000, 0), cupy_like_array(0x2000, 0), 1000, -1, 65535, -3.5]
    for sequence in (tuple(args), list(args)):
        assert native_slots(native, sizes, sequence) == python_slots(sizes, sequence)


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                  "float32", "float64", "bool_"])
def test_numpy_scalars_pack_their_own_bytes(native, name):
    kind = getattr(numpy, name)
    info = numpy.iinfo(kind) if name.startswith(("int", "uint")) else None
    values = [kind(0), kind(1), kind(True)]
    if info is not None:
        values += [kind(info.min), kind(info.max)]
    elif name.startswith("float"):
        values += [kind(-0.0), kind(math.inf), kind(-1.25), numpy.finfo(kind).max, numpy.finfo(kind).tiny]
    for value in values:
        size = value.nbytes
        assert native_slots(native, [size], (value,)) == [value.tobytes()] == python_slots([size], (value,))


@pytest.mark.parametrize("sizes, args, why", [
    ([4], (math.nan,), "a NaN keeps its payload only in the Python path"),
    ([2], (1.5,), "a float16 parameter"),
    ([1], (1.5,), "a float for a one-byte parameter: the Python path words the error"),
    ([4], (1e39,), "a float too large for float32"),
    ([4], (1 << 32,), "an int that does not fit"),
    ([8], (1 << 64,), "an int that does not fit"),
    ([4], (-(1 << 31) - 1,), "an int below the signed range"),
    ([16], (1,), "an int for a struct-sized parameter"),
    ([1], (True,), "a bool is not an exact int"),
    ([8], (None,), "None, the null pointer"),
    ([4], (ctypes.c_int32(1),), "a ctypes value"),
    ([8], (DeviceArray(0x1000),), "an array interface"),
    ([4], (cupy_like_array(0x1000, 0),), "a pointer for a four-byte parameter"),
    ([4], ("text",), "a string: the Python path words the error"),
    ([4, 4], (1,), "too few arguments"),
    ([4], (1, 2), "too many arguments"),
    ([4], iter((1,)), "arguments that are not a tuple or list"),
    ([4] * 65, (1,) * 65, "more parameters than the fast path holds"),
])
def test_what_the_python_path_must_pack_is_declined(native, sizes, args, why):
    assert native.pack(sizes, args) is NotImplemented, why


@pytest.mark.skipif(numpy is None, reason="numpy is not installed: numpy scalars not tested")
def test_numpy_values_the_python_path_must_pack_are_declined(native):
    assert native.pack([4], (numpy.uint32(0x7F800001).view(numpy.float32),)) is NotImplemented   # a NaN
    assert native.pack([2], (numpy.float16(1),)) is NotImplemented
    assert native.pack([8], (numpy.int32(1),)) is NotImplemented   # the wrong size: the Python path names it
    assert native.pack([4], (numpy.array(7, dtype=numpy.int32),)) is NotImplemented   # a 0-d array
    subclass = type("float32", (numpy.float32,), {"__module__": "mine"})
    assert native.pack([4], (subclass(1),)) is NotImplemented


def test_an_error_raised_while_packing_is_raised(native):
    ndarray = type("ndarray", (), {"__module__": "cupy"})
    broken = ndarray()   # no .data: reading the pointer raises AttributeError, in either path
    with pytest.raises(AttributeError):
        native.pack([8], (broken,))
    with pytest.raises(AttributeError):
        _arguments.encode_all("k", [8], (broken,))


@pytest.mark.parametrize("grid, block, shared", [
    (0, 1, 0), (1, 0, 0), ((1, 2, 3, 4), 1, 0), ((), 1, 0), (1.0, 1, 0), ([1], 1, 0), (1 << 32, 1, 0),
    ((1, 0), 1, 0), (True, 1, 0), (1, 1, -1), (1, 1, 1 << 32), (1, 1, 1.0),
])
def test_geometry_the_python_path_must_check_is_declined(native, grid, block, shared):
    assert native.launch(None, [4], (1,), grid, block, shared, None) is NotImplemented


def test_a_launch_reaches_libkiln_and_returns_its_status(native):
    # A null kernel: libkiln refuses it at its argument check, before the driver is needed, as it
    # does through ctypes.
    runtime = _library.runtime()
    through_ctypes = runtime.lib.kiln_kernel_launch(None, kiln._abi.Dim3(1, 1, 1), kiln._abi.Dim3(1, 1, 1), 0, None,
                                                    None, 0)
    status = native.launch(None, [], (), (1, 1, 1), 1, 0, None)
    assert status == through_ctypes == kiln._errors.STATUS["INVALID_ARGUMENT"]


def test_open_file_opens_as_ctypes_does(native, package_path, monkeypatch):
    with kiln.open(package_path) as package:
        names, targets = package.kernel_names, package.targets
    monkeypatch.setattr(_library.runtime(), "native", None)
    with kiln.open(package_path) as package:
        assert (package.kernel_names, package.targets) == (names, targets)


def test_open_file_reports_what_ctypes_reports(native, tmp_path, monkeypatch):
    missing = str(tmp_path / "missing.kiln")
    with pytest.raises(kiln.PackageError) as through_native:
        kiln.open(missing)
    monkeypatch.setattr(_library.runtime(), "native", None)
    with pytest.raises(kiln.PackageError) as through_ctypes:
        kiln.open(missing)
    assert (through_native.value.status, str(through_native.value)) == \
        (through_ctypes.value.status, str(through_ctypes.value))
    assert missing in str(through_native.value)


def test_kernels_are_found_as_ctypes_finds_them(native, package_path, monkeypatch):
    names = ["saxpy", "scale<float>", "scale< float >", "_Z5saxpyfPKfPfi", "no_such_kernel", "scale<int>"]
    with kiln.open(package_path) as package:
        through_native = [package._find(name, raise_missing=False) for name in names]
        monkeypatch.setattr(_library.runtime(), "native", None)
        through_ctypes = [package._find(name, raise_missing=False) for name in names]
    assert through_native == through_ctypes
    assert through_native[0] is not None and through_native[4] is None


def test_an_image_for_a_device_fails_as_through_ctypes_without_a_driver(native, package_path, monkeypatch):
    # This suite points KILN_LIBCUDA at a missing file: both ways meet the same NoDriverError.
    with kiln.open(package_path) as package:
        with pytest.raises(kiln.NoDriverError) as through_native:
            package.image("saxpy", device=0)
        monkeypatch.setattr(_library.runtime(), "native", None)
        with pytest.raises(kiln.NoDriverError) as through_ctypes:
            package.image("saxpy", device=0)
    assert str(through_native.value) == str(through_ctypes.value)


def test_a_path_or_name_with_a_nul_is_refused(native):
    with pytest.raises(ValueError, match="NUL"):
        native.open_file(b"a\0b")
    for call in (native.get_kernel, native.find_kernel):
        with pytest.raises(ValueError, match="NUL"):
            call(None, b"saxpy\0x")
    with pytest.raises(ValueError, match="NUL"):
        native.select_image(None, b"saxpy\0x", 0)


def test_bind_refuses_a_library_without_the_entry_points(native):
    libc = ctypes.CDLL("libc.so.6")
    assert native.bind(libc._handle) is False
    assert native.bind(_library.runtime().lib._handle) is True   # bound again to the binding's library


def test_the_variable_turns_it_off():
    assert _library._native_module(_library.runtime().lib._handle, environ={"KILN_PYTHON_NATIVE": "off"}) is None


@pytest.mark.parametrize("what", ["missing", "not a module"])
def test_a_file_the_variable_names_that_cannot_be_used_is_reported(tmp_path, package_path, what):
    path = str(tmp_path / "missing.abi3.so") if what == "missing" else package_path
    with pytest.raises(kiln.RuntimeLibraryError, match=r"cannot load \$KILN_PYTHON_NATIVE=" + path):
        _library._native_module(_library.runtime().lib._handle, environ={"KILN_PYTHON_NATIVE": path})
