"""The six ways the benchmark gets a kernel launched, each as the steps worker.py times.

Every module a path needs is imported inside import_modules(), never at the top of this file, so that
the import is on the clock. Steps: import_modules, init_cuda, allocate (outside the first launch),
then the first launch: prepare (open the package / build the RawModule), get_kernel, launch,
synchronize. read() copies a result back after the clock has stopped.
"""
from __future__ import annotations

import importlib
import os
import time

import cases


class LaunchPath:
    def __init__(self, case: cases.Case, source: str):
        self.case, self.source = case, source
        self.module_import_ms: dict[str, float] = {}

    def _import(self, name: str):
        start = time.perf_counter_ns()
        module = importlib.import_module(name)
        self.module_import_ms[name] = (time.perf_counter_ns() - start) / 1e6
        return module

    def image_description(self) -> str | None:
        return None


class CupyArrays(LaunchPath):
    """Data in CuPy arrays; CuPy makes device 0's primary context current, as a CuPy program does."""

    def import_modules(self):
        self.cp = self._import("cupy")

    def init_cuda(self):
        self.cp.cuda.Device(0).use()
        self.cp.cuda.runtime.free(0)  # cudaFree(0): creates the primary context and makes it current

    def allocate(self, host: dict):
        self.arrays = {name: self.cp.asarray(array) for name, array in host.items()}
        self.cp.cuda.runtime.deviceSynchronize()

    def argument(self, arg):
        return self.arrays[arg] if isinstance(arg, str) else arg

    def synchronize(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def read(self, name: str):
        return self.cp.asnumpy(self.arrays[name])

    def launch(self, grid: int, args: tuple):  # a cupy.RawKernel
        self.kernel((grid,), (cases.BLOCK,), tuple(self.argument(a) for a in args))


class KilnBinding(CupyArrays):
    """(1) The binding's own launcher (cuLaunchKernel through libkiln) on CuPy arrays."""

    def import_modules(self):
        self.kiln_example = self._import("kiln_example")
        super().import_modules()

    def prepare(self):
        self.package = self.kiln_example.package()

    def get_kernel(self):
        self.kernel = self.package.kernel(self.case.name)

    def launch(self, grid: int, args: tuple):
        self.kernel(grid, cases.BLOCK, tuple(self.argument(a) for a in args))

    def image_description(self) -> str:
        return self.package.image(self.case.name).description


class KilnCupy(KilnBinding):
    """(2) The package's image as a cupy.RawKernel."""

    def get_kernel(self):
        self.kernel = self.package.cupy_kernel(self.case.name)

    launch = CupyArrays.launch


class CupyRawModule(CupyArrays):
    """(4) and (5): CuPy compiles the kernel's source with NVRTC, or finds it in CUPY_CACHE_DIR."""

    def prepare(self):
        self.module = self.cp.RawModule(code=self.source, options=cases.CUPY_OPTIONS,
                                        name_expressions=[self.case.name])

    def get_kernel(self):
        self.kernel = self.module.get_function(self.case.name)  # compiles or loads the cached cubin


class KilnProgram(CupyArrays):
    """(6) kiln.compile_program on the kernel's source (the binding the example wheel vendors), found
    in Kiln's run-time cache (KILN_CACHE_DIR, filled by the warm-up round): what code that calls
    NVRTC or CuPy's RawModule moves to. CUB's headers come from the toolkit, as CuPy takes its own."""

    def import_modules(self):
        self.kiln_example = self._import("kiln_example")
        super().import_modules()

    def prepare(self):
        cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
        self.package = self.kiln_example.kiln.compile_program(
            self.source, kernels=[self.case.name], name=self.case.source, options=["-std=c++17"],
            include_dirs=[os.path.join(cuda, "include", "cccl"), os.path.join(cuda, "include")])

    def get_kernel(self):
        self.kernel = self.package.kernel(self.case.name)

    def launch(self, grid: int, args: tuple):
        self.kernel(grid, cases.BLOCK, tuple(self.argument(a) for a in args))


def import_cuda_core(importer) -> tuple:
    """Newer cuda.core has its API at cuda.core, older releases only in cuda.core.experimental."""
    try:
        module = importer("cuda.core")
        module.Device, module.LaunchConfig, module.launch
        return module, "cuda.core"
    except (ImportError, AttributeError):
        return importer("cuda.core.experimental"), "cuda.core.experimental"


class KilnCudaCore(LaunchPath):
    """(3) The package's image as a cuda.core Kernel; memory through cuda.bindings (cuda.core's own
    dependency), which is the same in every cuda.core version."""

    def import_modules(self):
        self.kiln_example = self._import("kiln_example")
        self.core, _ = import_cuda_core(self._import)
        self.driver = self._import("cuda.bindings.driver")

    def _check(self, result, what: str):
        if result[0] != self.driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuda.bindings: {what} failed: {result[0]!r}")
        return result[1] if len(result) > 1 else None

    def init_cuda(self):
        self.device = self.core.Device(0)
        self.device.set_current()  # retains device 0's primary context and makes it current
        self.stream = self.device.default_stream

    def allocate(self, host: dict):
        self.host = host
        self.pointers = {}
        for name, array in host.items():
            pointer = self._check(self.driver.cuMemAlloc(array.nbytes), f"cuMemAlloc of {name}")
            self._check(self.driver.cuMemcpyHtoD(pointer, array, array.nbytes), f"cuMemcpyHtoD of {name}")
            self.pointers[name] = int(pointer)

    def prepare(self):
        self.package = self.kiln_example.package()

    def get_kernel(self):
        self.kernel = self.package.cuda_core_kernel(self.case.name)

    def launch(self, grid: int, args: tuple):
        # cuda.core takes a Python int as a pointer, numpy scalars as their own type.
        values = [self.pointers[a] if isinstance(a, str) else a for a in args]
        config = self.core.LaunchConfig(grid=grid, block=cases.BLOCK)
        if hasattr(config, "stream"):  # cuda.core 0.1: the stream is in the config
            config = self.core.LaunchConfig(grid=grid, block=cases.BLOCK, stream=self.stream)
            self.core.launch(self.kernel, config, *values)
        else:
            self.core.launch(self.stream, config, self.kernel, *values)

    def synchronize(self):
        self.stream.sync()

    def read(self, name: str):
        result = self.host[name].copy()
        self._check(self.driver.cuMemcpyDtoH(result, self.pointers[name], result.nbytes), f"cuMemcpyDtoH of {name}")
        return result

    def image_description(self) -> str:
        return self.package.image(self.case.name).description


PATHS = {
    "kiln": KilnBinding,
    "kiln-cupy": KilnCupy,
    "kiln-cuda-core": KilnCudaCore,
    "cupy-cold": CupyRawModule,
    "cupy-warm": CupyRawModule,
    "kiln-program-warm": KilnProgram,
}
