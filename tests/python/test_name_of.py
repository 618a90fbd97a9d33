"""kiln.name_of against the demangler itself: each case's Itanium mangling (as GCC writes it for
`void k<...>()`) is demangled with libstdc++'s __cxa_demangle and stripped of "void " and "()", as
the generator makes a package's canonical names; name_of must spell exactly that."""

import ctypes
import ctypes.util

import pytest

import kiln

try:
    import numpy
except ImportError:  # numpy is optional for the binding; these cases say so when skipped
    numpy = None


def demangle(mangled):
    library = ctypes.CDLL(ctypes.util.find_library("stdc++") or "libstdc++.so.6")
    demangler = library.__cxa_demangle
    demangler.restype = ctypes.c_void_p
    demangler.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    status = ctypes.c_int()
    pointer = demangler(mangled.encode(), None, None, ctypes.byref(status))
    assert status.value == 0, mangled
    try:
        text = ctypes.string_at(pointer).decode()
    finally:
        ctypes.CDLL(None).free(ctypes.c_void_p(pointer))
    assert text.startswith("void ") and text.endswith("()")
    return text[len("void "):-len("()")]


def cases():
    plain = [
        ("_Z1kILi256EEvv", (256,)),
        ("_Z1kILin1EEvv", (-1,)),
        ("_Z1kILb1ELb0EEvv", (True, False)),
        ("_Z1kILc74EEvv", (b"J",)),
        ("_Z1kILcn1EEvv", (b"\xff",)),
        ("_Z1kIPKfEvv", ("float const*",)),
        ("_Z1kIN2fx3BarIiLi3EEEEvv", ("fx::Bar<int, 3>",)),  # a nested template: "> >"
        ("_Z1kILN2fx4ModeE1EEvv", ("(fx::Mode)1",)),
    ]
    if numpy is None:
        return plain
    return plain + [
        ("_Z1kIfLi256EEvv", (numpy.float32, 256)),
        ("_Z1kIdEvv", (numpy.dtype("float64"),)),
        ("_Z1kIajhstsilmEvv", (numpy.int8, numpy.uint32, numpy.uint8, numpy.int16, numpy.uint16, numpy.int16,
                               numpy.int32, numpy.int64, numpy.uint64)),
        ("_Z1kILj256EEvv", (numpy.uint32(256),)),
        ("_Z1kILln5ELm5EEvv", (numpy.int64(-5), numpy.uint64(5))),
        ("_Z1kILan3ELh3ELsn3ELt3EEvv", (numpy.int8(-3), numpy.uint8(3), numpy.int16(-3), numpy.uint16(3))),
        ("_Z1kILb1EEvv", (numpy.bool_(True),)),
    ]


@pytest.mark.parametrize("mangled, arguments", cases())
def test_name_of_is_the_demanglers_spelling(mangled, arguments):
    assert kiln.name_of("k", *arguments) == demangle(mangled)


def test_the_example_reads_as_documented():
    if numpy is None:
        pytest.skip("numpy is not installed")
    assert kiln.name_of("block_sum", numpy.float32, 256) == "block_sum<float, 256>"


@pytest.mark.parametrize("arguments, message", [
    ((), "give the kernel's template arguments"),
    ((1 << 31,), "2147483648 does not fit an int"),
    ((b"JK",), "a char is one byte"),
    ((1.5,), "cannot spell 1.5"),
    ((None,), "cannot spell None"),
])
def test_what_name_of_cannot_spell_is_refused(arguments, message):
    with pytest.raises(kiln.InvalidArgumentError, match="name_of\\('k'\\): " + message):
        kiln.name_of("k", *arguments)
