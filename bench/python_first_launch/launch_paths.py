"""The nine ways the benchmark gets a kernel launched, each as the steps worker.py times.

Every module a path needs is imported inside import_modules(), never at the top of this file, so that
the import is on the clock. Steps: import_modules, init_cuda, allocate (outside the first launch),
then the first launch: prepare (open the package / build the RawModule / read the image file),
get_kernel, launch, synchronize. read() copies a result back after the clock has stopped.

The two floor paths (7) and (8) load, without Kiln, the very image Kiln's package selects for the
device, from a file run.py wrote before any timed process (an ImageFile: the file and the kernel's
lowered name in it).
"""
from __future__ import annotations

import importlib
import os
import time
from dataclasses import dataclass

import cases


@dataclass(frozen=True)
class ImageFile:
    """The image run.py wrote for the floor paths (worker.py --write-image): its file, whose suffix is
    the image's kind ("cubin", or "ptx" where the package has no cubin for the device), and the
    lowered name of the kernel in it."""
    path: str
    lowered_name: str

    @property
    def kind(self) -> str:
        return os.path.splitext(self.path)[1].lstrip(".")


class LaunchPath:
    needs_image = False  # True: the floor paths, which load an ImageFile

    def __init__(self, case: cases.Case, source: str, image: ImageFile | None = None):
        if self.needs_image and image is None:
            raise ValueError(f"{type(self).__name__} loads the image file run.py writes: give an ImageFile")
        self.case, self.source, self.image = case, source, image
        self.module_import_ms: dict[str, float] = {}

    def _import(self, name: str):
        start = time.perf_counter_ns()
        module = importlib.import_module(name)
        self.module_import_ms[name] = (time.perf_counter_ns() - start) / 1e6
        return module

    def image_description(self) -> str | None:
        return None

    def native_calls(self) -> bool | None:
        """Whether Kiln's binding made its calls through kiln._native (None: a path without Kiln)."""
        example = getattr(self, "kiln_example", None)
        return None if example is None else example.kiln._library.runtime().native is not None


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


class KilnBindingCtypes(KilnBinding):
    """(1c) (1) with the binding's calls in C turned off (run.py sets KILN_PYTHON_NATIVE=off): every
    call through ctypes, as on a Python the module does not load in."""


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


class CupyCubin(CupyArrays):
    """(7) The floor of (2): CuPy loads the image Kiln's package selects for the device from its file,
    without Kiln: cupy.RawModule(path=...) only records the path; get_function(<lowered name>) loads
    the file (cuModuleLoad: the driver reads it), as it does for the file of (2) (on Linux a memory file, /proc/self/fd/<n>)."""
    needs_image = True

    def prepare(self):
        self.module = self.cp.RawModule(path=self.image.path)

    def get_kernel(self):
        self.kernel = self.module.get_function(self.image.lowered_name)  # reads and loads the file


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


def object_code(core, data: bytes, kind: str):
    """A cuda.core ObjectCode of an image's bytes, as Kiln's cuda_core_kernel makes it: from_cubin (or
    from_ptx) on cuda.core 0.2 and later, ObjectCode(data, kind) on 0.1."""
    code = core.ObjectCode
    if hasattr(code, "from_cubin"):
        return (code.from_cubin if kind == "cubin" else code.from_ptx)(data)
    return code(data, kind)


class CudaCoreCubin(KilnCudaCore):
    """(8) The floor of (3): cuda.core loads the image Kiln's package selects for the device, without
    Kiln: the file's bytes read (as Kiln's open reads the package), ObjectCode.from_cubin, get_kernel
    (<lowered name>), launched and its memory handled as (3) does."""
    needs_image = True

    def import_modules(self):
        self.core, _ = import_cuda_core(self._import)
        self.driver = self._import("cuda.bindings.driver")

    def prepare(self):
        with open(self.image.path, "rb") as file:  # part of the measured work, as the file read in Kiln's open
            data = file.read()
        self.code = object_code(self.core, data, self.image.kind)

    def get_kernel(self):
        self.kernel = self.code.get_kernel(self.image.lowered_name)

    def image_description(self) -> None:
        return None  # no package here; run.py records the image the file holds


PATHS = {
    "kiln": KilnBinding,
    "kiln-ctypes": KilnBindingCtypes,
    "kiln-cupy": KilnCupy,
    "kiln-cuda-core": KilnCudaCore,
    "cupy-cold": CupyRawModule,
    "cupy-warm": CupyRawModule,
    "kiln-program-warm": KilnProgram,
    "cupy-cubin": CupyCubin,
    "cuda-core-cubin": CudaCoreCubin,
}
