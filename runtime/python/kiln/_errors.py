"""Exceptions: one class per kind of failure, each carrying the runtime's status and message."""

# kiln_status values, in order (kiln.h: written in stone, only appended).
STATUS_NAMES = (
    "SUCCESS",
    "INVALID_ARGUMENT",
    "OUT_OF_MEMORY",
    "IO_ERROR",
    "NOT_A_PACKAGE",
    "UNSUPPORTED_VERSION",
    "TRUNCATED",
    "CORRUPT",
    "IMAGE_CORRUPT",
    "KERNEL_NOT_FOUND",
    "VARIABLE_NOT_FOUND",
    "NO_DRIVER",
    "NO_DEVICE",
    "NO_IMAGE_FOR_DEVICE",
    "DRIVER_ERROR",
    "ARGUMENT_MISMATCH",
    "INTERNAL_ERROR",
    "PACKAGE_NOT_FOUND",
    "COMPILE_FAILED",
    "NO_COMPILER",
)
STATUS = {name: value for value, name in enumerate(STATUS_NAMES)}


def status_name(status):
    if status is None:
        return None
    if 0 <= status < len(STATUS_NAMES):
        return STATUS_NAMES[status]
    return "UNKNOWN_STATUS_%d" % status  # a newer runtime's status this binding does not know


class KilnError(Exception):
    """A failure in Kiln. ``status`` is the runtime's kiln_status (an int) and ``status_name`` its
    name ("NO_DRIVER"); both are None for failures found by the binding itself before any runtime
    call (the runtime library cannot be loaded, CuPy is missing). ``str()`` is the message."""

    # The status of this kind of failure when the binding finds it itself (e.g. argument checks).
    _own_status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is None:
            status = STATUS.get(self._own_status)
        self.status = status
        self.status_name = status_name(status)

    def __str__(self):
        return self.args[0] if self.args else ""


class PackageError(KilnError):
    """The package cannot be read: missing, not a package, damaged, or of an unknown version."""


class KernelNotFoundError(KilnError, LookupError):
    """No kernel (or variable) by that name; the message lists the nearest names."""


class NoDriverError(KilnError):
    """No usable CUDA driver (libcuda.so.1) on this machine."""


class NoDeviceError(KilnError):
    """The driver sees no GPU, or no GPU of that ordinal."""


class NoImageForDeviceError(KilnError):
    """No image in the package runs on this device."""


class DriverError(KilnError):
    """The driver refused a call; the message names the call and the driver's error."""


class ArgumentMismatchError(KilnError, TypeError):
    """Launch arguments do not match the kernel's parameters."""

    _own_status = "ARGUMENT_MISMATCH"


class InvalidArgumentError(KilnError, ValueError):
    """A value out of range, or a closed package."""

    _own_status = "INVALID_ARGUMENT"


class CompileError(KilnError):
    """A run-time compile failed: the message holds NVRTC's or nvJitLink's log."""


class NoCompilerError(KilnError):
    """Run-time compilation was needed but is off (KILN_JIT=0) or NVRTC/nvJitLink cannot be loaded."""


class RuntimeLibraryError(KilnError, ImportError):
    """libkiln cannot be loaded, or is not a version this binding can use."""


class MissingModuleError(KilnError, ImportError):
    """An optional Python module an interop call needs (CuPy, cuda.core) is not installed."""


_CLASS_OF_STATUS = {
    "INVALID_ARGUMENT": InvalidArgumentError,
    "IO_ERROR": PackageError,
    "NOT_A_PACKAGE": PackageError,
    "UNSUPPORTED_VERSION": PackageError,
    "TRUNCATED": PackageError,
    "CORRUPT": PackageError,
    "IMAGE_CORRUPT": PackageError,
    "PACKAGE_NOT_FOUND": PackageError,
    "KERNEL_NOT_FOUND": KernelNotFoundError,
    "VARIABLE_NOT_FOUND": KernelNotFoundError,
    "NO_DRIVER": NoDriverError,
    "NO_DEVICE": NoDeviceError,
    "NO_IMAGE_FOR_DEVICE": NoImageForDeviceError,
    "DRIVER_ERROR": DriverError,
    "ARGUMENT_MISMATCH": ArgumentMismatchError,
    "COMPILE_FAILED": CompileError,
    "NO_COMPILER": NoCompilerError,
}


def error_for_status(status, message):
    """The exception for a failed runtime call (OUT_OF_MEMORY, INTERNAL_ERROR and statuses a newer
    runtime adds map to KilnError itself)."""
    return _CLASS_OF_STATUS.get(status_name(status), KilnError)(message, status)
