"""Builds of a small project with the real kiln (KILN: the executable) for the remote cache's tests,
and the entries they leave: two sources, two targets, so four compiles and two scans, six entries.
Each build has a local cache of its own, so what it does not compile or scan came from the server.

Entries are read and written here as Kiln does (runtime/src/store/entry_format.hpp,
generator/src/remote/entry_signing.hpp): the XXH3-64 comes from the system's libxxhash, the library
Kiln itself is built with, so a test can change an entry and recompute its checksum as an attacker
who can write to the server would.
"""

import ctypes
import json
import os
import struct
import subprocess
import sys
import time

KILN = os.environ.get("KILN", "kiln")
COMPILES = 4   # 2 units x 2 targets
SCANS = 2      # one scan result per source
# A compile's key holds its header sets, and each set's image is an entry of its own
# (generator/src/compile/compile_cache.hpp).
ENTRIES = 2 * COMPILES + SCANS
LOOKUPS = COMPILES + SCANS   # what a build reads first: a key per compile, a scan per source

SOURCES = {
    "kiln.toml": 'name = "remote"\ntargets = ["sm_80", "sm_90"]\n\n[[source]]\npath = "scale.cu"\n'
                 'instantiate = ["scale<float>", "scale<int>"]\n\n[[source]]\npath = "add.cu"\n',
    "scale.cu": '#include "common.cuh"\ntemplate <typename T>\n__global__ void scale(T* x, T a, int n) {\n'
                '  const int i = index();\n  if (i < n) x[i] *= a;\n}\n',
    "add.cu": '#include "common.cuh"\n__global__ void add(float* x, const float* y, int n) {\n'
              '  const int i = index();\n  if (i < n) x[i] += y[i];\n}\n',
    # A template in the header both sources include: each is scanned (a device-only unit without one is
    # left to NVRTC's image unparsed, docs/scan.md), so each has its scan entry.
    "common.cuh": "#pragma once\ntemplate <typename T> __device__ T at_least(T a, T b) { return a < b ? b : a; }\n"
                  "__device__ inline int index() { return at_least(0, int(blockIdx.x * blockDim.x + threadIdx.x)); }\n",
}

# Runs a command and prints the most memory it (or any process it waited for) held, in KiB, last.
PEAK_MEMORY = ("import resource, subprocess, sys\n"
               "code = subprocess.run(sys.argv[1:]).returncode\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
               "sys.exit(code)\n")


def environment(cache, remote, **variables):
    # The machine's own AWS settings never reach a build (an S3 test gives what it means, HOME too).
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KILN_REMOTE_CACHE", "AWS_"))}
    env["KILN_CACHE_DIR"] = str(cache)
    if remote:
        env["KILN_REMOTE_CACHE"] = remote
        # A machine running other tests beside these can take seconds to complete a Python server's
        # gRPC handshake; the 2 s default would make such a build go without the cache. Tests of the
        # connect timeout set their own.
        env["KILN_REMOTE_CACHE_CONNECT_TIMEOUT"] = "30"
    env.update(variables)
    return env


def build(project, cache, out, remote, measure=False, **variables):
    """kiln build -v; with `measure`, the run's peak_kib is the most memory the build held."""
    command = [KILN, "build", "-o", str(out), "-v"]
    if measure:
        command = [sys.executable, "-c", PEAK_MEMORY] + command
    started = time.monotonic()
    run = subprocess.run(command, cwd=project, env=environment(cache, remote, **variables), capture_output=True,
                         text=True, timeout=300)
    run.seconds = time.monotonic() - started
    if measure:
        lines = run.stderr.rstrip("\n").split("\n")
        run.peak_kib = int(lines[-1])
        run.stderr = "\n".join(lines[:-1]) + "\n"
    return run


def stats(cache):
    run = subprocess.run([KILN, "cache", "stats", "--json", "--cache-dir", str(cache)], capture_output=True,
                         text=True, check=True)
    return json.loads(run.stdout)


def remote_warnings(run):
    return [line for line in run.stderr.splitlines() if line.startswith("kiln: warning: remote cache")]


def fresh_build(project, tmp_path, name, remote, **variables):
    """A build with an empty local cache of its own: (run, its stats, the package's bytes or None)."""
    cache = tmp_path / f"cache-{name}"
    out = tmp_path / f"{name}.kiln"
    run = build(project, cache, out, remote, **variables)
    return run, stats(cache), out.read_bytes() if out.exists() else None


_xxh = ctypes.CDLL("libxxhash.so.0")
_xxh.XXH3_64bits.restype = ctypes.c_uint64
_xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]


def encode_entry(key, payload):
    """An entry as the store writes it: header (key, size, XXH3-64), then the payload."""
    return b"kiln-store 1 %s %d %016x\n" % (key.encode(), len(payload), _xxh.XXH3_64bits(payload, len(payload))) + payload


def split_entry(data):
    """(signature line or b"", key, payload) of an entry as a server holds it."""
    line = b""
    if data.startswith(b"kiln-signed 1 "):
        end = data.index(b"\n") + 1
        line, data = data[:end], data[end:]
    end = data.index(b"\n")
    _, _, key, size, _ = data[:end].split(b" ")
    assert int(size) == len(data) - end - 1
    return line, key.decode(), data[end + 1:]


# A compile's image entry (generator/src/compile/compile_cache.hpp): version, then the compile's output
# (compile_job.cpp) as one string: ok, log, image, lowered names, headers, microseconds. The key's
# entry beside it lists header sets. Integers are little-endian u64; strings are length-prefixed.
def is_image_entry(payload):
    if payload.startswith(b"kiln-scan-cache") or len(payload) < 16:
        return False
    return struct.unpack_from("<Q", payload, 8)[0] == len(payload) - 16


class _Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def u64(self):
        self.at += 8
        return struct.unpack_from("<Q", self.data, self.at - 8)[0]

    def text(self):
        size = self.u64()
        self.at += size
        return self.data[self.at - size:self.at]


def _u64(v):
    return struct.pack("<Q", v)


def _text(b):
    return _u64(len(b)) + b


def with_image(payload, change):
    """The image entry's payload with its image replaced by change(image)."""
    outer = _Reader(payload)
    version = outer.u64()
    inner = _Reader(outer.text())
    assert outer.at == len(payload)
    ok, log, image = inner.u64(), inner.text(), inner.text()
    tail = inner.data[inner.at:]
    return _u64(version) + _text(_u64(ok) + _text(log) + _text(change(image)) + tail)


def code_section(image):
    """(offset, size) of the first .text.* section of a cubin: a kernel's code."""
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQ", image, shoff + i * shentsize) for i in range(shnum)]
    names_at = sections[shstrndx][4]
    for name, _, _, _, offset, size in sections:
        label = image[names_at + name:image.index(b"\0", names_at + name)]
        if label.startswith(b".text.") and size > 0:
            return offset, size
    raise AssertionError("no code in the image")


def flip_a_code_bit(image):
    offset, size = code_section(image)
    changed = bytearray(image)
    changed[offset + size // 2] ^= 0x04
    return bytes(changed)
