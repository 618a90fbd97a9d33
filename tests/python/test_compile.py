"""Run-time compilation through the binding, without a GPU: the arguments kiln.compile_program takes
and refuses, KILN_JIT=0, the NVIDIA wheels' library directories registered with libkiln, the cache's
counters, and coverage by architecture. (Compiles and launches run in the GPU tests.)"""

import os

import pytest

import kiln
from kiln import _compile
from support import run_python


def test_a_program_needs_a_driver_to_know_its_target():
    if not os.environ.get("KILN_LIBCUDA") or os.path.exists(os.environ["KILN_LIBCUDA"]):
        pytest.skip("KILN_LIBCUDA does not name a missing file: needs ctest's environment")
    with pytest.raises(kiln.NoDriverError):
        kiln.compile_program("__global__ void k() {}", kernels=["k"])


def test_kiln_jit_zero_turns_compiling_off():
    result = run_python("import kiln\n"
                        "try:\n"
                        "    kiln.compile_program('__global__ void k() {}', kernels=['k'])\n"
                        "except kiln.NoCompilerError as e:\n"
                        "    print('refused:', e)\n", {"KILN_JIT": "0"})
    assert result.returncode == 0, result.stderr
    assert "refused: program.cu: run-time compilation is off (KILN_JIT=0)" in result.stdout


@pytest.mark.parametrize("arguments, error", [
    ({"source": b"bytes"}, TypeError),
    ({"source": "x", "kernels": "k"}, TypeError),             # one string, not a list
    ({"source": "x", "options": [1]}, TypeError),
    ({"source": "x", "kernels": ["a\0b"]}, kiln.InvalidArgumentError),
    ({"source": "x", "headers": {"a.h": 3}}, TypeError),
])
def test_bad_arguments_are_refused_before_compiling(arguments, error):
    source = arguments.pop("source")
    with pytest.raises(error):
        kiln.compile_program(source, **arguments)


def test_wheel_library_directories_are_found(tmp_path, monkeypatch):
    for relative in ("nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"):
        (tmp_path / relative).mkdir(parents=True)
    (tmp_path / "nvidia" / "nvjitlink").mkdir()   # a wheel directory without lib/ is not one
    monkeypatch.syspath_prepend(str(tmp_path))
    found = _compile.nvidia_wheel_library_dirs()
    assert found[:2] == [str(tmp_path / "nvidia" / "cu13" / "lib"), str(tmp_path / "nvidia" / "cuda_nvrtc" / "lib")]


def test_wheel_library_directories_under_the_working_directory_are_absolute(tmp_path, monkeypatch):
    # sys.path's "" is the working directory: registered as it is now, not wherever the process is
    # when libkiln loads the compilers.
    (tmp_path / "nvidia" / "cu13" / "lib").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend("")
    assert _compile.nvidia_wheel_library_dirs()[0] == str(tmp_path / "nvidia" / "cu13" / "lib")


def test_no_wheels_no_directories(tmp_path):
    result = run_python("from kiln import _compile\nprint(_compile.nvidia_wheel_library_dirs())",
                        {"PYTHONNOUSERSITE": "1"}, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    # Whatever this environment has installed, every entry is an existing directory.
    for path in eval(result.stdout):   # noqa: S307 (our own repr of a list of str)
        assert os.path.isdir(path)


def test_cache_stats_start_at_zero_in_a_fresh_process():
    result = run_python("import kiln\nprint(sorted(kiln.cache_stats().items()))")
    assert result.returncode == 0, result.stderr
    stats = dict(eval(result.stdout))   # noqa: S307
    assert set(stats) == {"package_hits", "memory_hits", "cache_hits", "compiles", "compile_failures",
                          "compiled_bytes", "cache_bytes_read"}
    assert all(value == 0 for value in stats.values())


def test_coverage_by_architecture(package):
    assert package.coverage("saxpy", 90) == "cubin"
    assert package.coverage("saxpy", "8.6") == "cubin"      # sm_80's cubin runs on 8.6
    assert package.coverage("saxpy", 75) == "ptx"
    assert package.coverage("saxpy", 70) == "none"          # nothing older than compute_75, no sources
    with pytest.raises(kiln.KernelNotFoundError):
        package.coverage("no_such_kernel", 90)
