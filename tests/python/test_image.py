"""Package.image for an architecture: the runtime's choice, checked and decoded, with no driver."""

import re

import pytest

import kiln
from kiln._image import compute_capability, device_ordinal


def test_an_exact_cubin(package):
    image = package.image("saxpy", arch=90)
    assert isinstance(image, kiln.Image)
    assert image.kind == "cubin"
    assert image.data.startswith(b"\x7fELF")
    assert image.target == "sm_90"
    assert image.compute_capability == 90
    assert image.kernel_name == "saxpy"
    assert image.lowered_name == "_Z5saxpyfPKfPfi"
    assert "sm_90" in image.description
    assert "cubin" in repr(image) and "saxpy" in repr(image)


def test_the_lowered_name_is_the_listed_one(package):
    listed = {info.name: info.lowered_name for info in package.kernels}
    for name in package.kernel_names:
        assert package.image(name, arch=90).lowered_name == listed[name]


def test_any_recorded_spelling_finds_the_kernel(package):
    assert package.image("scale< float >", arch=90).kernel_name == "scale<float>"
    assert package.image("_Z5saxpyfPKfPfi", arch=90).kernel_name == "saxpy"
    assert package.image(name="saxpy", arch=90).kernel_name == "saxpy"


def test_a_lower_minor_cubin(package):
    image = package.image("saxpy", arch=86)
    assert (image.kind, image.target, image.compute_capability) == ("cubin", "sm_80", 86)


def test_ptx_where_no_cubin_runs(package):
    image = package.image("saxpy", arch=75)
    assert (image.kind, image.target, image.compute_capability) == ("ptx", "compute_75", 75)
    text = image.data.decode("ascii")
    assert ".entry _Z5saxpyfPKfPfi" in text and ".target sm_75" in text
    assert not image.data.endswith(b"\0")  # the text, without the terminating NUL


def test_a_newer_major_gets_ptx(package):
    assert package.image("saxpy", arch=100).kind == "ptx"


def test_an_older_driver_that_cannot_read_the_ptx(package):
    # CUDA 11.0's driver reads PTX ISA 7.0 at most; a CUDA 13 package's PTX is newer.
    with pytest.raises(kiln.NoImageForDeviceError) as raised:
        package.image("saxpy", arch=100, driver_version=11000)
    assert raised.value.status_name == "NO_IMAGE_FOR_DEVICE"
    assert "saxpy" in str(raised.value)


def test_no_image_for_an_older_device(package):
    with pytest.raises(kiln.NoImageForDeviceError) as raised:
        package.image("saxpy", arch=70)
    assert "saxpy" in str(raised.value) and package.label in str(raised.value)


def test_arch_spellings():
    for spelling in (90, "90", "sm_90", "sm_90a", "compute_90", "9.0", (9, 0), [9, 0]):
        assert compute_capability(spelling) == 90
    assert compute_capability("sm_100f") == 100
    assert compute_capability("12.1") == 121


@pytest.mark.parametrize("bad", [9, "sm90", "9", "nine", 9.0, True, (9,), ("9", "0"), "9.10", "", "sm_", "90a",
                                 "sm_9", "0.5", (0, 5), b"sm_90",
                                 "\u00b2", "sm_\u0669\u0660",    # "²" and Arabic-Indic "90": not ASCII digits
                                 (1 << 32) + 90, ((1 << 31), 0)])  # ctypes would wrap these to 90 and 0
def test_bad_arch_spellings(package, bad):
    with pytest.raises(kiln.InvalidArgumentError, match="cannot read an architecture"):
        package.image("saxpy", arch=bad)


def test_a_compute_capability_out_of_the_runtimes_range(package):
    # Read, and refused by the runtime, which names the package and kernel.
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'saxpy': compute capability 1000 is not major"):
        package.image("saxpy", arch=1000)


@pytest.mark.parametrize("bad", ["13000", 13000.0, None, True, 1 << 31, -(1 << 31) - 1, (1 << 32) + 13000])
def test_a_driver_version_that_is_not_a_c_int(package, bad):
    with pytest.raises(kiln.InvalidArgumentError, match="driver_version must be an int"):
        package.image("saxpy", arch=90, driver_version=bad)


@pytest.mark.parametrize("bad", [-1, 500])
def test_a_driver_version_not_in_cuda_form(package, bad):
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'saxpy': driver version %d is not in" % bad):
        package.image("saxpy", arch=90, driver_version=bad)


def test_a_driver_version_without_an_arch_is_refused(package):
    # Not ignored: for a device the runtime asks its driver.
    with pytest.raises(kiln.InvalidArgumentError, match="driver_version goes with arch"):
        package.image("saxpy", 0, driver_version=11000)


@pytest.mark.parametrize("bad, message", [
    ("0", "not a CUDA device: '0'"), (0.0, "not a CUDA device: 0.0"), (True, "not a CUDA device: True"),
    (object(), "not a CUDA device"), (-1, "no CUDA device -1: ordinals start at 0"),
    (1 << 31, "no CUDA device 2147483648: an ordinal is a C int"),
    (1 << 32, "no CUDA device 4294967296: an ordinal is a C int"),   # which ctypes would wrap to device 0
])
def test_bad_devices_are_refused_before_the_driver(package, bad, message):
    # No driver here (KILN_LIBCUDA names a missing file), so reaching the runtime would be NoDriverError.
    with pytest.raises(kiln.InvalidArgumentError, match=re.escape(message)):
        package.image("saxpy", bad)


class CupyDevice:
    id = 3


class CudaCoreDevice:
    device_id = 2


def test_device_objects_give_their_ordinals():
    assert [device_ordinal(d) for d in (None, 0, 5, CupyDevice(), CudaCoreDevice())] == [-1, 0, 5, 3, 2]


def test_a_device_and_an_arch_together_are_refused(package):
    with pytest.raises(kiln.InvalidArgumentError, match="not both"):
        package.image("saxpy", 0, arch=90)


def test_the_image_is_a_copy_that_outlives_the_package(package_path):
    with kiln.open(package_path) as package:
        image = package.image("saxpy", arch=90)
    assert image.data.startswith(b"\x7fELF")
