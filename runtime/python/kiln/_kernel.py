"""A kernel loaded through libkiln and launched through it."""

import ctypes

from . import _abi, _arguments, _launch
from ._errors import InvalidArgumentError

# Parameter sizes are read in one call for kernels of up to this many parameters (nearly all), into
# an array of one type for all of them (ctypes makes each array type once, in tens of microseconds).
_PARAM_CAPACITY = 32
_PARAM_SIZES = ctypes.c_size_t * _PARAM_CAPACITY   # made once, with the binding's other C types
_PARAM_SIZES()   # ctypes completes an array type at its first instance (about 30 us): here, not in a first launch
_NO_STREAM = object()   # a stream the fast path cannot name: the launch goes the Python way


class Kernel:
    """A kernel of a package (Package.kernel). Launches on the device of the context current at
    launch time (CuPy's and cuda.core's current device), loading that device's image if needed.
    Holds its package open."""

    def __init__(self, package, handle):
        self._package = package
        self._handle = handle
        runtime = package._runtime
        self._lowered_name = None
        if runtime.native is not None:
            status, name, self.param_sizes = runtime.native.kernel_info(handle)
            runtime.check(status)
        else:
            name = runtime.lib.kiln_kernel_name(handle)
            self.param_sizes = self._read_param_sizes(runtime)
        self.name = name.decode("utf-8", "replace")

    def _read_param_sizes(self, runtime):
        count = ctypes.c_size_t()
        sizes = _PARAM_SIZES()
        runtime.check(runtime.lib.kiln_kernel_params(self._handle, ctypes.byref(count), sizes, None, _PARAM_CAPACITY))
        if count.value == _abi.KILN_PARAMS_UNKNOWN:
            return None
        if count.value > _PARAM_CAPACITY:
            sizes = (ctypes.c_size_t * count.value)()
            runtime.check(runtime.lib.kiln_kernel_params(self._handle, ctypes.byref(count), sizes, None, count.value))
        return sizes[:count.value]

    @property
    def lowered_name(self):
        """Its symbol in the image ("_Z5scaleIfEvPT_S0_i"), also for a kernel compiled at run time:
        what CuPy's and cuda.core's loaders look it up by. Asked of libkiln when first read."""
        if self._lowered_name is None:
            self._lowered_name = self._package._lowered_name_of(self._handle, self.name)
        return self._lowered_name

    @lowered_name.setter
    def lowered_name(self, value):
        self._lowered_name = value

    @property
    def handle(self):
        """The CUkernel (an int) for the current context's device; loads its image if needed. Usable
        with cuLaunchKernelEx or cuda.core's Kernel.from_handle (while the package is open)."""
        runtime, _ = self._package._live()
        out = ctypes.c_void_p()
        runtime.check(runtime.lib.kiln_kernel_handle(self._handle, ctypes.byref(out)))
        return out.value or 0

    def launch(self, grid, block, args, shared_mem=0, stream=None, cluster=None, cooperative=False, priority=None):
        """Launches on `stream` (None: the default stream; an int CUstream; or a CuPy/cuda.core
        stream) with `args` packed by the parameter sizes the package records (see _arguments).

        Launch attributes (cuLaunchKernelEx; runtime 0.3.0+): `cluster`, blocks per thread block
        cluster (an int or 1 to 3 ints; compute capability 9.0+); `cooperative`, a cooperative launch
        whose grid may synchronize (every block resident at once: see max_active_blocks);
        `priority`, the launch's priority (an int; lower numbers are higher priority). Without any
        of them the launch goes through cuLaunchKernel, as with earlier runtimes."""
        runtime, _ = self._package._live()
        native = runtime.native
        # kiln._native packs and launches the usual arguments in C; NotImplemented leaves the rest
        # (and every error's wording) to the Python path below, which packs the same bytes.
        if native is not None and cluster is None and not cooperative and priority is None \
                and self.param_sizes is not None:
            try:
                handle = _launch.stream_handle(self.name, stream)
            except InvalidArgumentError:
                handle = _NO_STREAM   # the Python path raises it, after any argument's error, as always
            if handle is not _NO_STREAM:
                status = native.launch(self._handle, self.param_sizes, args, grid, block, shared_mem, handle)
                if status is not NotImplemented:
                    runtime.check(status)
                    return
        blobs = _arguments.encode_all(self.name, self.param_sizes, args)
        grid3 = _launch.dim3(self.name, "grid", grid)
        block3 = _launch.dim3(self.name, "block", block)
        shared = _launch.shared_bytes(self.name, shared_mem)
        handle = _launch.stream_handle(self.name, stream)
        extended = cluster is not None or cooperative or priority is not None
        if extended:
            config = _abi.LaunchConfigStruct(ctypes.sizeof(_abi.LaunchConfigStruct), grid3, block3, shared, handle,
                                             _launch.cluster(self.name, cluster), 1 if cooperative else 0,
                                             *_launch.priority(self.name, priority))
            launch_ex = runtime.function("kiln_kernel_launch_ex", "Kernel.launch with cluster, cooperative or priority")
        pointers, data = _arguments.pointer_array(blobs)
        if extended:
            status = launch_ex(self._handle, ctypes.byref(config), pointers, len(blobs))
        else:
            status = runtime.lib.kiln_kernel_launch(self._handle, grid3, block3, shared, handle, pointers, len(blobs))
        del data  # the driver copied the parameters when the launch call returned
        runtime.check(status)

    def attribute(self, name):
        """An attribute of the kernel on the current context's device, by name: one of
        kiln.KERNEL_ATTRIBUTES ("registers", "max_threads_per_block", "static_shared_bytes", ...)."""
        kind = _abi.KERNEL_ATTRIBUTES.get(name)
        if kind is None:
            raise InvalidArgumentError("kernel '%s': no kernel attribute %r; known: %s"
                                       % (self.name, name, ", ".join(sorted(_abi.KERNEL_ATTRIBUTES))))
        runtime, _ = self._package._live()
        function = runtime.function("kiln_kernel_attribute", "Kernel.attribute")
        value = ctypes.c_int()
        runtime.check(function(self._handle, kind, ctypes.byref(value)))
        return value.value

    def max_active_blocks(self, block_size, shared_mem=0):
        """How many blocks of `block_size` threads with `shared_mem` bytes of dynamic shared memory
        each are resident at once on one multiprocessor of the current device."""
        block_size = _launch.int_at_least(self.name, "block_size", block_size, 1)
        shared = _launch.byte_count(self.name, "shared_mem", shared_mem)
        runtime, _ = self._package._live()
        function = runtime.function("kiln_kernel_max_active_blocks", "Kernel.max_active_blocks")
        blocks = ctypes.c_int()
        runtime.check(function(self._handle, block_size, shared, ctypes.byref(blocks)))
        return blocks.value

    def suggest_block_size(self, shared_mem=0, limit=0):
        """(min_grid_size, block_size): the block size of best occupancy with `shared_mem` bytes of
        dynamic shared memory per block, at most `limit` threads (0: no limit of the caller's), and the
        smallest grid that reaches that occupancy on the whole device."""
        shared = _launch.byte_count(self.name, "shared_mem", shared_mem)
        limit = _launch.int_at_least(self.name, "limit", limit, 0)
        runtime, _ = self._package._live()
        function = runtime.function("kiln_kernel_suggest_block_size", "Kernel.suggest_block_size")
        grid, block = ctypes.c_int(), ctypes.c_int()
        runtime.check(function(self._handle, shared, limit, ctypes.byref(grid), ctypes.byref(block)))
        return grid.value, block.value

    __call__ = launch

    def __repr__(self):
        return "<kiln.Kernel %s from %s>" % (self.name, self._package.label)
