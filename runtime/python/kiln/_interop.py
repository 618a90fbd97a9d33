"""Kernels of a package handed to CuPy and cuda.core, each loading the image the runtime selects.
Both are imported here, lazily: the binding itself needs neither.

CuPy loads modules only from source or from a file (cupy.RawModule(path=...)), so the image goes
to a file only this process can reach: on Linux an anonymous memory file (os.memfd_create), named
to CuPy as /proc/self/fd/<n>, which nothing on disk ever holds; elsewhere, or where /proc does not
show it, a private temporary file (tempfile.mkstemp: mode 0600, in the temporary directory, never
the home directory) removed as soon as CuPy has loaded it. CuPy remembers a loaded module by its
path for the life of the process, so a memory file stays open as long as that: its descriptor
number, and with it the path, is never handed out again (one descriptor and one copy of the image
per kernel and device loaded this way). CuPy loads a file-backed module once per device, so a
RawKernel is made per (kernel, device): call cupy_kernel again on another device. cuda.core takes
the bytes directly."""

import os

from ._errors import STATUS, DriverError, MissingModuleError
from ._image import device_ordinal


def _import_cupy():
    try:
        import cupy
    except ImportError as error:
        raise MissingModuleError("Package.cupy_kernel needs CuPy, which cannot be imported here (%s); install "
                                 "CuPy, or use Package.kernel or Package.cuda_core_kernel" % error) from None
    return cupy


def _import_cuda_core():
    """cuda.core's module with ObjectCode: cuda.core (1.x) or cuda.core.experimental (0.x)."""
    errors = []
    for module_name in ("cuda.core", "cuda.core.experimental"):
        try:
            module = __import__(module_name, fromlist=["ObjectCode"])
        except ImportError as error:
            errors.append("%s: %s" % (module_name, error))
            continue
        if hasattr(module, "ObjectCode"):
            return module
        errors.append("%s has no ObjectCode" % module_name)
    raise MissingModuleError("Package.cuda_core_kernel needs cuda.core (pip install cuda-core), which cannot be "
                             "imported here (%s)" % "; ".join(errors))


def _failure(package, name, method, step, error):
    """Kiln's error for a failure of CuPy or cuda.core: where the loader could not reach the driver or
    a device, the runtime's own probe (selecting the image for the current device) raises the
    NoDriverError or NoDeviceError that says why; otherwise a DriverError naming the kernel, the step
    and the loader's message (the loader's exception is its __cause__)."""
    package.image(name)
    return DriverError("Package.%s(%r): %s failed: %s: %s" % (method, name, step, type(error).__name__, error),
                       STATUS["DRIVER_ERROR"])


def _cached(package, key, make):
    with package._lock:
        kernel = package._interop.get(key)
        if kernel is None:
            kernel = package._interop[key] = make()
    return kernel


# The memory files CuPy's loaded modules are named by: kept open for the process's life (see above).
_memory_files = []


def _memory_file(image):
    """The path of an anonymous memory file holding the image, or None where there is none to have
    (no os.memfd_create, or no /proc/self/fd to name it by)."""
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is None:
        return None
    try:
        descriptor = memfd_create("kiln-image." + image.kind, getattr(os, "MFD_CLOEXEC", 0))
    except OSError:
        return None
    try:
        data = memoryview(image.data)
        while data:
            data = data[os.write(descriptor, data):]
        path = "/proc/self/fd/%d" % descriptor
        if os.stat(path).st_size != len(image.data):   # /proc missing, or not this file
            raise OSError("%s does not show the memory file" % path)
    except OSError:
        os.close(descriptor)
        return None
    _memory_files.append(descriptor)
    return path


def _load_with_cupy(cupy, image):
    path = _memory_file(image)
    if path is not None:
        # get_function loads the module on the current device now.
        return cupy.RawModule(path=path).get_function(image.lowered_name)
    import tempfile  # here, not at the top: it costs milliseconds at import and only this needs it
    descriptor, path = tempfile.mkstemp(prefix="kiln-", suffix="." + image.kind)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(image.data)
        module = cupy.RawModule(path=path)
        # get_function loads the module on the current device now, so the file may go.
        return module.get_function(image.lowered_name)
    finally:
        os.unlink(path)


def cupy_kernel(package, name):
    cupy = _import_cupy()
    index = package._find(name)
    try:
        device = cupy.cuda.runtime.getDevice()
    except RuntimeError as error:   # CuPy's CUDARuntimeError: no driver, no device, a driver too old
        raise _failure(package, name, "cupy_kernel", "CuPy's cupy.cuda.runtime.getDevice()", error) from error

    def make():
        image = package.image(name, device=device)   # raises Kiln's errors itself
        try:
            return _load_with_cupy(cupy, image)
        except RuntimeError as error:   # CuPy's CUDADriverError from loading the module
            raise _failure(package, name, "cupy_kernel", "CuPy loading the %s image" % image.target, error) from error
    return _cached(package, ("cupy", index, device), make)


def _object_code(core, image):
    code = core.ObjectCode
    if hasattr(code, "from_cubin"):  # cuda.core 0.2 and later
        make = code.from_cubin if image.kind == "cubin" else code.from_ptx
        return make(image.data)
    return code(image.data, image.kind)  # cuda.core 0.1: ObjectCode(module, code_type)


def cuda_core_kernel(package, name, device=None):
    core = _import_cuda_core()
    index = package._find(name)
    if device is None:
        try:
            ordinal = core.Device().device_id
        except Exception as error:   # cuda.core's CUDAError, or cuda.bindings failing to load libcuda
            raise _failure(package, name, "cuda_core_kernel", "cuda.core's Device()", error) from error
    else:
        ordinal = device_ordinal(device)

    def make():
        image = package.image(name, device=ordinal)   # raises Kiln's errors itself
        try:
            return _object_code(core, image).get_kernel(image.lowered_name)
        except Exception as error:
            raise _failure(package, name, "cuda_core_kernel", "cuda.core loading the %s image" % image.target,
                           error) from error
    return _cached(package, ("cuda.core", index, ordinal), make)
