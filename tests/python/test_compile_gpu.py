"""Compiling at run time through the binding (issue 14), on the GPU with the machine's NVRTC: a
program from a string launched with the binding's launcher on driver memory, then found again in
this process's cache; an instantiation the package lacks compiled from the sources it carries; a
compile error as CompileError with NVRTC's log."""

import array

import pytest

import kiln
from gpu_driver import DeviceArray

SOURCE = """#include "factor.h"
template <typename T> __global__ void triple(T* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= FACTOR;
}
"""


def test_a_program_from_a_string_runs_and_is_compiled_once(gpu, tmp_path, monkeypatch):
    before = kiln.cache_stats()
    compiled = kiln.compile_program(SOURCE, kernels=["triple<float>"], headers={"factor.h": "#define FACTOR 3\n"},
                                    name="triple.cu")
    kernel = compiled.kernel("triple<float>")
    assert kernel.param_sizes == [8, 4]
    x = DeviceArray(gpu, array.array("f", range(100)))
    kernel.launch(1, 128, (x, 100))
    gpu.synchronize()
    assert list(x.read()) == [3.0 * i for i in range(100)]
    again = kiln.compile_program(SOURCE, kernels=["triple<float>"], headers={"factor.h": "#define FACTOR 3\n"},
                                 name="triple.cu")
    assert again.kernel("triple<float>").lowered_name == kernel.lowered_name
    after = kiln.cache_stats()
    assert after["compiles"] + after["cache_hits"] - before["compiles"] - before["cache_hits"] == 1
    assert after["memory_hits"] > before["memory_hits"]


def test_a_compile_error_is_a_compile_error_with_the_log(gpu):
    with pytest.raises(kiln.CompileError) as raised:
        kiln.compile_program("__global__ void k() { nope(); }", kernels=["k"], name="broken.cu")
    assert "identifier \"nope\" is undefined" in str(raised.value)
    assert raised.value.status_name == "COMPILE_FAILED"


def test_an_instantiation_the_package_lacks_is_compiled_from_its_carried_sources(gpu, package):
    assert "shift<int>" not in package
    kernel = package.kernel("shift<int>")
    assert kernel.name == "shift<int>"
    assert kernel.lowered_name == "_Z5shiftIiEvPT_S0_i"
    assert kernel.param_sizes == [8, 4, 4]
    x = DeviceArray(gpu, array.array("i", range(64)))
    kernel.launch(1, 64, (x, 5, 64))
    gpu.synchronize()
    assert list(x.read()) == [i + 5 + 1 for i in range(64)]   # the carried header's offset is 1
    assert package.kernel("shift<int>") is kernel, "asked again: the same kernel, not another compile"
