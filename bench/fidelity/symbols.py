"""Kernel names as the fidelity benchmark compares them: the kernel symbols of a cubin (read from its
ELF symbol table), demangled with c++filt, and one spelling for names that mean the same kernel.

Kiln's packages and nvcc's cubins spell some kernels differently: nvcc's relocatable output prefixes
internal-linkage symbols with "__nv_static_<N>_<module>_", NVRTC and nvcc hash unnamed namespaces
differently, and nvcc names internal entities after a module ID that hashes the path it was given.
Without those, both demangle to the same C++ name, which is what is compared.
"""
import re
import struct
import subprocess

STT_FUNC = 2
STO_CUDA_ENTRY = 0x10


def cubin_kernels(data):
    """The kernel symbols (STT_FUNC with STO_CUDA_ENTRY) of a 64-bit little-endian ELF cubin."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not a 64-bit ELF file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    kernels = []
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2 or entsize != 24:  # SHT_SYMTAB
            continue
        strtab = sections[link][4]
        for at in range(offset + 24, offset + size, 24):
            name_offset, info, other = struct.unpack_from("<IBB", data, at)
            section_index = struct.unpack_from("<H", data, at + 6)[0]
            if info & 0xF == STT_FUNC and other & STO_CUDA_ENTRY and section_index != 0:
                end = data.index(b"\0", strtab + name_offset)
                kernels.append(data[strtab + name_offset:end].decode())
    return sorted(set(kernels))


_MODULE_PREFIX = re.compile(r"^__nv_static_(\d+)_")


def without_module_prefix(symbol):
    m = _MODULE_PREFIX.match(symbol)
    if not m:
        return symbol
    rest = symbol[m.end():]
    length = int(m.group(1))
    return rest[length + 1:] if len(rest) > length and rest[length] == "_" else symbol


def demangle_all(symbols):
    """symbol -> demangled name, through one c++filt run."""
    symbols = list(symbols)
    if not symbols:
        return {}
    stripped = [without_module_prefix(s) for s in symbols]
    out = subprocess.run(["c++filt"], input="\n".join(stripped) + "\n", capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return dict(zip(symbols, out))


def _strip_signature(name):
    if name.startswith("void "):
        name = name[5:]
    if name.endswith(")"):
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            if name[i] == ")":
                depth += 1
            elif name[i] == "(":
                depth -= 1
                if depth == 0:
                    return name[:i]
    return name


# nvcc names an internal-linkage entity after its module: "_INTERNAL_3717bd31_11_binbcast_cu_6840010b::op_add".
# The module ID hashes the path nvcc was given, which differs between the oracle and Kiln.
_INTERNAL = re.compile(r"_INTERNAL_[0-9a-f]+_\d+_\w*?_[0-9a-f]{8}::")
# CCCL's versioned inline namespaces ("cub::CUB_300001_SM_900::BlockScanAlgorithm", "cuda::std::__4::"):
# inline, so the names with and without them are the same entity; the scan writes them as the user does.
_CCCL_INLINE = re.compile(r"\b(?:(?:CUB|THRUST)_\d+(?:_SM_\d+)*(?:_NS)?|__\d+)::")
_LITERAL = re.compile(r"\b(\d+)(?:ull|ul|ll|u|l)\b", re.IGNORECASE)
_CAST = re.compile(r"\((?:char|signed char|unsigned char|short|unsigned short|int|unsigned int|long|"
                   r"unsigned long|long long|unsigned long long|bool)\)(-?\d+)")


def comparable(name):
    """One spelling for names that mean the same kernel: no parameter list, no unnamed namespaces,
    no whitespace, integer literals without suffixes or casts, 'unsigned' for 'unsigned int'."""
    name = _strip_signature(name)
    name = name.replace("(anonymous namespace)::", "").replace("::(anonymous namespace)", "")
    name = _INTERNAL.sub("", name)
    name = _CCCL_INLINE.sub("", name)
    name = _CAST.sub(r"\1", name)
    name = _LITERAL.sub(r"\1", name)
    name = re.sub(r"\s+", " ", name).strip()
    name = name.replace("unsigned int", "unsigned").replace("long int", "long").replace("short int", "short")
    name = re.sub(r"\bconst (\w+) \*", r"\1 const*", name)
    return re.sub(r"\s", "", name)
