"""Every failure maps to its exception class and keeps the runtime's status and message."""

import os
import re
import struct

import pytest

import kiln
from kiln import _errors
from support import BINDING_DIR


@pytest.mark.parametrize("status_name, cls", [
    ("INVALID_ARGUMENT", kiln.InvalidArgumentError),
    ("OUT_OF_MEMORY", kiln.KilnError),
    ("IO_ERROR", kiln.PackageError),
    ("NOT_A_PACKAGE", kiln.PackageError),
    ("UNSUPPORTED_VERSION", kiln.PackageError),
    ("TRUNCATED", kiln.PackageError),
    ("CORRUPT", kiln.PackageError),
    ("IMAGE_CORRUPT", kiln.PackageError),
    ("KERNEL_NOT_FOUND", kiln.KernelNotFoundError),
    ("VARIABLE_NOT_FOUND", kiln.KernelNotFoundError),
    ("NO_DRIVER", kiln.NoDriverError),
    ("NO_DEVICE", kiln.NoDeviceError),
    ("NO_IMAGE_FOR_DEVICE", kiln.NoImageForDeviceError),
    ("DRIVER_ERROR", kiln.DriverError),
    ("ARGUMENT_MISMATCH", kiln.ArgumentMismatchError),
    ("INTERNAL_ERROR", kiln.KilnError),
    ("PACKAGE_NOT_FOUND", kiln.PackageError),
    ("COMPILE_FAILED", kiln.CompileError),
    ("NO_COMPILER", kiln.NoCompilerError),
])
def test_each_status_has_its_class(status_name, cls):
    error = _errors.error_for_status(_errors.STATUS[status_name], "the message")
    assert type(error) is cls
    assert error.status == _errors.STATUS[status_name] and error.status_name == status_name
    assert str(error) == "the message"


def test_the_status_names_match_kiln_h():
    # kiln.h's enum, read from the header this binding is tested with: a shifted, missing or extra
    # name in the binding's table fails here.
    header = os.path.join(os.path.dirname(BINDING_DIR), "..", "include", "kiln", "kiln.h")
    with open(header) as file:
        declared = {name: int(value) for name, value in re.findall(r"KILN_STATUS_(\w+) = (\d+)", file.read())}
    assert declared["PACKAGE_NOT_FOUND"] == 17  # the header was read
    assert _errors.STATUS == declared


def test_an_unknown_status_is_a_kiln_error():
    error = _errors.error_for_status(99, "from a newer runtime")
    assert type(error) is kiln.KilnError and error.status == 99 and error.status_name == "UNKNOWN_STATUS_99"


def test_classes_that_are_also_builtin_errors():
    assert issubclass(kiln.KernelNotFoundError, LookupError)
    assert issubclass(kiln.ArgumentMismatchError, TypeError)
    assert issubclass(kiln.InvalidArgumentError, ValueError)
    for cls in (kiln.PackageError, kiln.KernelNotFoundError, kiln.NoDriverError, kiln.NoDeviceError,
                kiln.NoImageForDeviceError, kiln.DriverError, kiln.ArgumentMismatchError, kiln.RuntimeLibraryError,
                kiln.MissingModuleError):
        assert issubclass(cls, kiln.KilnError)


def open_error(path):
    with pytest.raises(kiln.PackageError) as raised:
        kiln.open(path)
    return raised.value


def test_a_missing_file(tmp_path):
    missing = tmp_path / "missing.kiln"
    error = open_error(missing)
    assert error.status_name == "IO_ERROR"
    assert str(missing) in str(error)


def test_a_truncated_file(tmp_path, package_bytes):
    path = tmp_path / "truncated.kiln"
    path.write_bytes(package_bytes[: len(package_bytes) // 2])
    error = open_error(path)
    assert error.status_name == "TRUNCATED"
    assert str(path) in str(error)


def test_not_a_package(tmp_path):
    path = tmp_path / "text.kiln"
    path.write_bytes(b"this is not a Kiln package\n" * 8)
    error = open_error(path)
    assert error.status_name == "NOT_A_PACKAGE"
    assert str(path) in str(error)


def test_a_corrupt_index(tmp_path, package_bytes):
    # The first section (at the end of the 64-byte header) is covered by the TOC's checksum.
    damaged = bytearray(package_bytes)
    damaged[64] ^= 0xFF
    path = tmp_path / "corrupt.kiln"
    path.write_bytes(bytes(damaged))
    error = open_error(path)
    assert error.status_name == "CORRUPT"
    assert str(path) in str(error)


def blobs_offset(data):
    """Where the BLOBS section (kind 11) starts (docs/package-format.md)."""
    toc_offset, = struct.unpack_from("<Q", data, 24)
    count, = struct.unpack_from("<I", data, 32)
    for i in range(count):
        kind, _flags, offset, _size, _checksum = struct.unpack_from("<IIQQQ", data, toc_offset + 32 * i)
        if kind == 11:
            return offset
    raise AssertionError("no BLOBS section")


def test_a_corrupt_image_is_found_when_selected(package_bytes):
    # Images are checked lazily, so the package opens and the damage shows when an image is chosen.
    damaged = bytearray(package_bytes)
    damaged[blobs_offset(package_bytes) + 100] ^= 0xFF
    with kiln.Package.from_bytes(damaged, label="damaged.kiln") as package:
        errors = []
        for name in package.kernel_names:
            for arch in (75, 80, 90):
                try:
                    package.image(name, arch=arch)
                except kiln.PackageError as error:
                    errors.append(error)
    assert errors, "no image was found damaged"
    assert all(error.status_name == "IMAGE_CORRUPT" for error in errors)
    assert "damaged.kiln" in str(errors[0])


def test_an_unknown_kernel_lists_the_nearest(package):
    with pytest.raises(kiln.KernelNotFoundError) as raised:
        package.image("scale<int>", arch=90)
    assert raised.value.status_name == "KERNEL_NOT_FOUND"
    assert "scale<int>" in str(raised.value) and "nearest" in str(raised.value)
    assert "scale<float>" in str(raised.value)
    with pytest.raises(LookupError):
        package.kernel("saxpi")  # found missing before any driver is needed


def test_an_unknown_variable_lists_the_nearest(package):
    # Variable names are checked before the driver is needed.
    with pytest.raises(kiln.KernelNotFoundError) as raised:
        package.global_address("countr")
    assert raised.value.status_name == "VARIABLE_NOT_FOUND"
    assert "countr" in str(raised.value) and "counter" in str(raised.value)


def test_names_must_be_strings(package):
    with pytest.raises(TypeError, match="must be a str"):
        package.image(b"saxpy", arch=90)
