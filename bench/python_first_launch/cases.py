"""The example wheel's kernels as the benchmark launches them: inputs, launch shape, expected result.

numpy only, so the report and the tests can use it without a GPU. Each kernel's parameters follow
examples/python-wheel/kernels/*.cu; an argument is either a numpy scalar or the name of an input
array, which each path turns into its own device pointer (a CuPy array, or an address for cuda.core).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

import numpy as np

BLOCK = 256
# Not a multiple of the block size, so every kernel's bounds check runs in the last block.
DEFAULT_ELEMENTS = (1 << 20) - 100
# None needed, as a CuPy user would write it: CuPy 14 adds the include paths of the CCCL it bundles
# (for block_sum's CUB) and --std=c++17 (CCCL 3's minimum) to every RawModule compile itself.
CUPY_OPTIONS = ()

Arg = Union[np.generic, str]  # a scalar as passed, or the name of an input array


@dataclass(frozen=True)
class Case:
    name: str                     # the kernel's name in the package and CuPy's name expression
    source: str                   # file in the kernel directory
    arrays: Callable[[int, np.random.Generator], dict]   # host inputs by name
    args: Callable[[int], tuple]  # the kernel's arguments in order
    grid: Callable[[int], int]
    output: str                   # the array the kernel writes
    expected: Callable[[dict, int], np.ndarray]
    rtol: float


def _blocks(count: int) -> int:
    return (count + BLOCK - 1) // BLOCK


SAXPY_A = np.float32(2.5)
SCALE_FACTOR = np.float32(1.5)
SCALE_PER_THREAD = 4

CASES = {
    "saxpy": Case(
        name="saxpy", source="saxpy.cu",
        arrays=lambda n, rng: {"x": rng.random(n, dtype=np.float32), "y": rng.random(n, dtype=np.float32)},
        args=lambda n: (SAXPY_A, "x", "y", np.int32(n)),
        grid=_blocks, output="y",
        expected=lambda host, n: SAXPY_A * host["x"] + host["y"],
        rtol=1e-5),  # the GPU may fuse the multiply-add, numpy rounds twice
    "scale<float, 4>": Case(
        name="scale<float, 4>", source="scale.cu",
        arrays=lambda n, rng: {"data": rng.random(n, dtype=np.float32)},
        args=lambda n: ("data", SCALE_FACTOR, np.int32(n)),
        grid=lambda n: _blocks((n + SCALE_PER_THREAD - 1) // SCALE_PER_THREAD), output="data",
        expected=lambda host, n: host["data"] * SCALE_FACTOR,
        rtol=1e-6),
    "block_sum<float, 256>": Case(
        name="block_sum<float, 256>", source="block_sum.cu",
        arrays=lambda n, rng: {"in": rng.random(n, dtype=np.float32),
                               "out": np.zeros(_blocks(n), dtype=np.float32)},
        args=lambda n: ("in", "out", np.int32(n)),
        grid=_blocks, output="out",
        expected=lambda host, n: np.pad(host["in"], (0, _blocks(n) * BLOCK - n))
        .reshape(-1, BLOCK).sum(axis=1, dtype=np.float64),
        rtol=1e-5),  # the tree order of BlockReduce differs from numpy's
}


def check(case: Case, host: dict, result: np.ndarray, n: int) -> str | None:
    """None if `result` is what `case` should have written, else a message saying where it is not."""
    expected = case.expected(host, n)
    if result.shape != expected.shape:
        return f"{case.name}: {case.output} has shape {result.shape}, expected {expected.shape}"
    bad = ~np.isclose(result, expected, rtol=case.rtol, atol=1e-6)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        return (f"{case.name}: {int(bad.sum())} of {bad.size} elements of {case.output} are wrong; "
                f"first at [{first}]: got {result[first]!r}, expected {expected[first]!r}")
    return None
