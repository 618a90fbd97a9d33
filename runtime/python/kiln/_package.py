"""A Kiln package, opened through libkiln."""

import ctypes
import os
import threading

from . import _abi, _interop, _library, _stale
from ._errors import STATUS, InvalidArgumentError
from ._image import Image, KernelInfo, checked_driver_version, compute_capability, device_ordinal
from ._kernel import Kernel


_KERNEL_NOT_FOUND = STATUS["KERNEL_NOT_FOUND"]
_NOT_FOUND = (_KERNEL_NOT_FOUND, STATUS["VARIABLE_NOT_FOUND"])
# The calls on a package and a kernel name that give one value: kiln._native's name -> libkiln's
# entry point and the C type of what it writes, for the way through ctypes.
_NAMED_CALLS = {"find_kernel": ("kiln_package_find_kernel", ctypes.c_size_t),
                "get_kernel": ("kiln_package_get_kernel", ctypes.c_void_p)}


def _name_bytes(name):
    if not isinstance(name, str):
        raise TypeError("a kernel or variable name must be a str, not %s" % type(name).__name__)
    if "\0" in name:  # C would read the name only up to it: "saxpy\0x" would find saxpy
        raise InvalidArgumentError("a kernel or variable name holds no NUL character: %r" % name)
    return name.encode("utf-8")


class Package:
    """A package file or buffer, open until close() (or the end of a with-block, or collection).
    Listing and image selection for an architecture need no driver; kernel(), image() for a
    device, global_address() and preload() load libcuda on first use."""

    def __init__(self, handle, runtime, label):
        """Use Package.open or Package.from_bytes."""
        self._handle = handle
        self._runtime = runtime
        self.label = label
        self._lock = threading.Lock()
        self._kernels = {}   # kiln_kernel address -> Kernel
        self._interop = {}   # (loader, kernel index, device) -> the loader's kernel
        self._path = None    # the file opened, for the stale-package hint (Package.open)

    @classmethod
    def open(cls, path):
        """Opens the package file at `path` (a str or os.PathLike): reads its index now and each
        image when it is first needed, from the file kept open (docs/runtime.md)."""
        runtime = _library.runtime()
        path = os.fspath(path)
        encoded = os.fsencode(path)
        if b"\0" in encoded:  # as open() refuses it: C would open the path up to the NUL
            raise InvalidArgumentError("a package path holds no NUL character: %r" % (path,))
        if runtime.native is not None:
            status, handle = runtime.native.open_file(encoded)
            runtime.check(status)
        else:
            out = ctypes.c_void_p()
            runtime.check(runtime.lib.kiln_package_open_file(encoded, ctypes.byref(out)))
            handle = out.value
        package = cls(handle, runtime, os.fsdecode(path))
        package._path = package.label
        return package

    @classmethod
    def from_bytes(cls, data, label=None):
        """Opens a package from a bytes-like object, which is copied."""
        runtime = _library.runtime()
        data = bytes(data)
        handle = ctypes.c_void_p()
        encoded_label = None if label is None else str(label).encode("utf-8")
        runtime.check(runtime.lib.kiln_package_open_memory(data, len(data), _abi.KILN_OPEN_COPY, encoded_label,
                                                           ctypes.byref(handle)))
        return cls(handle.value, runtime, "<memory>" if label is None else str(label))

    def _check_name(self, status, name):
        """Raises the error of a call about kernel or variable `name` that failed; a missing one
        says so where the package is stale (_stale: an editable install)."""
        if status == 0:
            return
        error = self._runtime.error(status, self._handle)
        if status in _NOT_FOUND:
            hint = _stale.stale_hint(self._path, name)
            if hint:
                error.args = (str(error) + hint,)
        raise error

    def _live(self):
        handle = self._handle
        if handle is None:
            raise InvalidArgumentError("package %s is closed" % self.label)
        return self._runtime, handle

    def close(self):
        """Unloads what the package loaded and frees it. Kernels from kernel() must not be
        launched after this; CuPy and cuda.core kernels hold their own copies and go on working."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._runtime.lib.kiln_package_destroy(handle)

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            try:
                self.close()
            except Exception:  # at interpreter exit ctypes may already be torn down
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        state = "closed" if self._handle is None else "%d kernels" % len(self)
        return "<kiln.Package %s (%s)>" % (self.label, state)

    # ---- What it holds (no driver) ----

    def _strings(self, count_function, item_function):
        runtime, handle = self._live()
        lib = runtime.lib
        count = getattr(lib, count_function)(handle)
        strings = []
        for i in range(count):
            text = getattr(lib, item_function)(handle, i)
            if text is None:  # its record failed its checks (a large index is checked at first use)
                raise runtime.error(STATUS["CORRUPT"], handle)  # with the package's last error
            strings.append(text.decode("utf-8", "replace"))
        return strings

    @property
    def kernel_names(self):
        """Canonical kernel names ("block_sum<float, 256>"), sorted by lowered name."""
        return self._strings("kiln_package_kernel_count", "kiln_package_kernel_name")

    @property
    def kernels(self):
        lowered = self._strings("kiln_package_kernel_count", "kiln_package_kernel_lowered_name")
        return [KernelInfo(name, low) for name, low in zip(self.kernel_names, lowered)]

    @property
    def targets(self):
        """The targets the package was built for ("sm_90a", "compute_75")."""
        return self._strings("kiln_package_target_count", "kiln_package_target")

    def __len__(self):
        runtime, handle = self._live()
        return runtime.lib.kiln_package_kernel_count(handle)

    def __iter__(self):
        return iter(self.kernel_names)

    def __contains__(self, name):
        """Whether the package holds a kernel by this name (any spelling it records)."""
        return isinstance(name, str) and "\0" not in name and self._find(name, raise_missing=False) is not None

    def _named_call(self, call, name):
        """(status, value) of a libkiln call on this package and kernel `name` that gives one value
        (_NAMED_CALLS): through kiln._native where the binding has it, else through ctypes."""
        runtime, handle = self._live()
        encoded = _name_bytes(name)
        if runtime.native is not None:
            return getattr(runtime.native, call)(handle, encoded)
        function, kind = _NAMED_CALLS[call]
        out = kind()
        status = getattr(runtime.lib, function)(handle, encoded, ctypes.byref(out))
        return status, out.value

    def _find(self, name, raise_missing=True):
        """The kernel's index, as kiln_package_get_kernel would find it."""
        status, index = self._named_call("find_kernel", name)
        if status == _KERNEL_NOT_FOUND and not raise_missing:
            return None
        self._check_name(status, name)
        return index

    # ---- Images for other loaders ----

    def image(self, name, device=None, *, arch=None, driver_version=0):
        """The image kernel() would load for `name`: on CUDA device `device` (None: the current
        context's device, else device 0; an ordinal or a CuPy/cuda.core device), or, with `arch`
        (90, "sm_90", "9.0"), for a device of that compute capability whose driver is
        `driver_version` (cuDriverGetVersion's form; 0: the newest the runtime knows), which
        needs no driver. Honors KILN_FORCE_TARGET."""
        runtime, handle = self._live()
        if arch is None:
            if driver_version != 0:
                raise InvalidArgumentError("Package.image: driver_version goes with arch (for a device, the "
                                           "driver's own version is used)")
            encoded, ordinal = _name_bytes(name), device_ordinal(device)
            if runtime.native is not None:   # the first launch's way, which makes no ctypes struct
                status, fields = runtime.native.select_image(handle, encoded, ordinal)
                self._check_name(status, name)
                return Image.from_fields(*fields)
        elif device is not None:
            raise InvalidArgumentError("Package.image: give a device or an arch, not both")
        out = _abi.ImageStruct()
        out.struct_size = ctypes.sizeof(out)
        if arch is None:
            status = runtime.lib.kiln_package_select_image(handle, encoded, ordinal, ctypes.byref(out))
        else:
            status = runtime.lib.kiln_package_select_image_for_arch(
                handle, _name_bytes(name), compute_capability(arch), checked_driver_version(driver_version),
                ctypes.byref(out))
        self._check_name(status, name)
        return Image.from_struct(out)

    def coverage(self, name, arch, driver_version=0):
        """How kernel `name` runs on a device of compute capability `arch` (90, "sm_90", "9.0") whose
        driver is `driver_version` (0: new enough): "cubin", "ptx" (the driver compiles it),
        "runtime-compile" (no image, but the package carries its sources) or "none". No driver needed."""
        runtime, handle = self._live()
        function = runtime.function("kiln_package_kernel_coverage", "Package.coverage")
        index = self._find(name)
        out = ctypes.c_int()
        runtime.check(function(handle, index, compute_capability(arch), checked_driver_version(driver_version),
                               ctypes.byref(out)), handle)
        return _abi.COVERAGE.get(out.value, "none")

    # ---- Loading through libkiln (needs the driver) ----

    def kernel(self, name):
        """The kernel `name`, loaded for the current context's device (device 0's primary context
        is made current if none is)."""
        # An unknown name fails here with the nearest names, before the driver is needed.
        status, address = self._named_call("get_kernel", name)
        self._check_name(status, name)
        with self._lock:
            kernel = self._kernels.get(address)
            if kernel is None:
                kernel = self._kernels[address] = Kernel(self, address)
        return kernel

    def _lowered_name_of(self, kernel_handle, name):
        """The lowered name of the kernel at `kernel_handle` (Kernel.lowered_name)."""
        runtime, handle = self._live()
        # A kernel compiled at run time has no index in this package: ask the kernel itself
        # (runtimes before 0.4.0 compile nothing, and their kernels all have one).
        lowered_of_kernel = getattr(runtime.lib, "kiln_kernel_lowered_name", None)
        if lowered_of_kernel is not None:
            lowered = lowered_of_kernel(kernel_handle)
        else:
            lowered = runtime.lib.kiln_package_kernel_lowered_name(handle, self._find(name))
        return lowered.decode("utf-8", "replace")

    def global_address(self, name):
        """(device pointer, size in bytes) of a __device__/__constant__ variable the package kept,
        in the current context."""
        runtime, handle = self._live()
        pointer, size = ctypes.c_uint64(), ctypes.c_size_t()
        self._check_name(runtime.lib.kiln_package_get_global(handle, _name_bytes(name), ctypes.byref(pointer),
                                                             ctypes.byref(size)), name)
        return pointer.value, size.value

    def preload(self):
        """Loads, for the current context's device, every image and kernel up front."""
        runtime, handle = self._live()
        runtime.check(runtime.lib.kiln_package_preload(handle), handle)

    # ---- Other loaders ----

    def cupy_kernel(self, name):
        """`name` as a cupy.RawKernel, loaded on CuPy's current device (see _interop)."""
        return _interop.cupy_kernel(self, name)

    def cuda_core_kernel(self, name, device=None):
        """`name` as a cuda.core Kernel for `device` (None: cuda.core's current device)."""
        return _interop.cuda_core_kernel(self, name, device)

