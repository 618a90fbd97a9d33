"""Kernels of a package handed to CuPy and cuda.core, each loading the image the runtime selects.
Both are imported here, lazily: the binding itself needs neither.

CuPy loads modules only from source or from a file (cupy.RawModule(path=...)), so the image goes
to a private temporary file (tempfile.mkstemp: mode 0600, in the temporary directory, never the
home directory) that is removed as soon as CuPy has loaded it. CuPy loads a file-backed module
once per device, so a RawKernel is made per (kernel, device): call cupy_kernel again on another
device. cuda.core takes the bytes directly."""

import os

from ._errors import MissingModuleError
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


def _cached(package, key, make):
    with package._lock:
        kernel = package._interop.get(key)
        if kernel is None:
            kernel = package._interop[key] = make()
    return kernel


def _load_with_cupy(cupy, image):
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
    device = cupy.cuda.runtime.getDevice()
    return _cached(package, ("cupy", index, device),
                   lambda: _load_with_cupy(cupy, package.image(name, device=device)))


def _object_code(core, image):
    code = core.ObjectCode
    if hasattr(code, "from_cubin"):  # cuda.core 0.2 and later
        make = code.from_cubin if image.kind == "cubin" else code.from_ptx
        return make(image.data)
    return code(image.data, image.kind)  # cuda.core 0.1: ObjectCode(module, code_type)


def cuda_core_kernel(package, name, device=None):
    core = _import_cuda_core()
    index = package._find(name)
    ordinal = core.Device().device_id if device is None else device_ordinal(device)

    def make():
        image = package.image(name, device=ordinal)
        return _object_code(core, image).get_kernel(image.lowered_name)
    return _cached(package, ("cuda.core", index, ordinal), make)
