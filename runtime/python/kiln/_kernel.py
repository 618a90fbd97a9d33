"""A kernel loaded through libkiln and launched through it."""

import ctypes

from . import _abi, _arguments, _launch


class Kernel:
    """A kernel of a package (Package.kernel). Launches on the device of the context current at
    launch time (CuPy's and cuda.core's current device), loading that device's image if needed.
    Holds its package open."""

    def __init__(self, package, handle, lowered_name):
        self._package = package
        self._handle = handle
        runtime = package._runtime
        self.name = runtime.lib.kiln_kernel_name(handle).decode("utf-8", "replace")
        self.lowered_name = lowered_name
        self.param_sizes = self._read_param_sizes(runtime)

    def _read_param_sizes(self, runtime):
        count = ctypes.c_size_t()
        runtime.check(runtime.lib.kiln_kernel_params(self._handle, ctypes.byref(count), None, None, 0))
        if count.value == _abi.KILN_PARAMS_UNKNOWN:
            return None
        sizes = (ctypes.c_size_t * max(count.value, 1))()
        runtime.check(runtime.lib.kiln_kernel_params(self._handle, ctypes.byref(count), sizes, None, count.value))
        return [sizes[i] for i in range(count.value)]

    @property
    def handle(self):
        """The CUkernel (an int) for the current context's device; loads its image if needed. Usable
        with cuLaunchKernelEx or cuda.core's Kernel.from_handle (while the package is open)."""
        runtime, _ = self._package._live()
        out = ctypes.c_void_p()
        runtime.check(runtime.lib.kiln_kernel_handle(self._handle, ctypes.byref(out)))
        return out.value or 0

    def launch(self, grid, block, args, shared_mem=0, stream=None):
        """Launches on `stream` (None: the default stream; an int CUstream; or a CuPy/cuda.core
        stream) with `args` packed by the parameter sizes the package records (see _arguments)."""
        runtime, _ = self._package._live()
        blobs = _arguments.encode_all(self.name, self.param_sizes, args)
        grid3 = _launch.dim3(self.name, "grid", grid)
        block3 = _launch.dim3(self.name, "block", block)
        shared = _launch.shared_bytes(self.name, shared_mem)
        handle = _launch.stream_handle(self.name, stream)
        pointers, buffers = _arguments.pointer_array(blobs)
        status = runtime.lib.kiln_kernel_launch(self._handle, grid3, block3, shared, handle, pointers, len(blobs))
        del buffers  # the driver copied the parameters when cuLaunchKernel returned
        runtime.check(status)

    __call__ = launch

    def __repr__(self):
        return "<kiln.Kernel %s from %s>" % (self.name, self._package.label)
