"""kiln.name_of: the name of a kernel template instantiation, spelled as the package records it.

A package finds a kernel by its canonical name: the demangled (Itanium) lowered name without return
type and parameters, whatever the manifest wrote ("block_sum<float, 256>", "k<(char)74>",
"k<256u>"). Lookups ignore whitespace between symbols, nothing else; so the spelling below is the
demangler's, exactly as the C++ kiln::name_of (kiln/name_of.hpp) gives it:

    argument                      spelled          C++ parameter
    numpy.float32 (or its dtype)  float            class T
    numpy.int64                   long             (LP64: int64_t is long)
    True / False                  true / false     bool
    256                           256              int (a Python int must fit an int)
    numpy.uint32(256)             256u             unsigned int
    numpy.int64(5)                5l               long
    numpy.uint64(5)               5ul              unsigned long
    numpy.int8(-3)                (signed char)-3  signed char
    numpy.uint8(3)                (unsigned char)3 unsigned char
    numpy.int16 / uint16 values   (short)N, (unsigned short)N
    b"J"                          (char)74         char
    a str                         as written       anything else: "float const*", "(fx::Mode)1"

A str is taken as the demangler's spelling already (see docs/runtime.md for the rules: cv after the
type, "float const*", enums as "(ns::Mode)1").
"""

import operator

from ._errors import InvalidArgumentError

# numpy scalar type names (numpy.dtype(x).name) to C++ fundamental types on LP64 Linux, as the
# demangler names them. float16 is CUDA's __half (a class), bool_ is bool.
_TYPES = {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
    "uint16": "unsigned short", "int32": "int", "uint32": "unsigned int", "int64": "long",
    "uint64": "unsigned long", "float16": "__half", "float32": "float", "float64": "double",
}

# Value spellings by numpy type name: (prefix, suffix) around the decimal value.
_VALUES = {
    "int8": ("(signed char)", ""), "uint8": ("(unsigned char)", ""), "int16": ("(short)", ""),
    "uint16": ("(unsigned short)", ""), "int32": ("", ""), "uint32": ("", "u"), "int64": ("", "l"),
    "uint64": ("", "ul"),
}

_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1


def _numpy_kind(argument):
    """("type", name) for a numpy scalar type or dtype, ("value", name) for a numpy scalar (name as
    numpy.dtype names it: "float32"), or None. numpy is imported only for numpy's own objects."""
    owner = argument if isinstance(argument, type) else type(argument)
    if not (owner.__module__ or "").startswith("numpy"):
        return None
    import numpy
    if isinstance(argument, numpy.dtype):
        return "type", argument.name
    if isinstance(argument, type) and issubclass(argument, numpy.generic):
        return "type", numpy.dtype(argument).name
    if isinstance(argument, numpy.generic):
        return "value", argument.dtype.name
    return None


def _spell(kernel, argument):
    if isinstance(argument, str):
        return argument.strip()
    if isinstance(argument, bool):
        return "true" if argument else "false"
    if isinstance(argument, bytes):
        if len(argument) != 1:
            raise InvalidArgumentError("name_of('%s'): a char is one byte, not %r" % (kernel, argument))
        value = argument[0] - 256 if argument[0] >= 128 else argument[0]  # char is signed on x86-64 Linux
        return "(char)%d" % value
    kind = _numpy_kind(argument)
    if kind == ("value", "bool"):
        return "true" if bool(argument) else "false"
    if kind is not None and kind[0] == "type" and kind[1] in _TYPES:
        return _TYPES[kind[1]]
    if kind is not None and kind[0] == "value" and kind[1] in _VALUES:
        prefix, suffix = _VALUES[kind[1]]
        return "%s%d%s" % (prefix, int(argument), suffix)
    if kind is None and isinstance(argument, int):
        number = operator.index(argument)
        if not _INT_MIN <= number <= _INT_MAX:
            raise InvalidArgumentError("name_of('%s'): %d does not fit an int: give it in the parameter's type, "
                                       "e.g. numpy.int64(%d) for long, numpy.uint64(%d) for unsigned long"
                                       % (kernel, number, number, number))
        return str(number)
    raise InvalidArgumentError("name_of('%s'): cannot spell %r: give a numpy type, dtype or integer value, a bool, "
                               "a one-byte bytes for a char, or the demangler's spelling as a str" % (kernel, argument))


def name_of(kernel, *arguments):
    """The name of kernel template `kernel` ("block_sum", "ns::reduce") instantiated with
    `arguments`: kiln.name_of("block_sum", numpy.float32, 256) is "block_sum<float, 256>"."""
    if not arguments:
        raise InvalidArgumentError("name_of('%s'): give the kernel's template arguments" % kernel)
    out = "%s<%s" % (kernel, ", ".join(_spell(kernel, a) for a in arguments))
    # As the demangler writes it: never two '>' in a row.
    return out + (" >" if out.endswith(">") else ">")
