"""Opening a package and listing what it holds: no driver needed."""

import os
import pathlib

import pytest

import kiln

KERNELS = {"saxpy", "echo_args", "take_pair", "scale<float>", "scale<double>", "count_up"}


def test_versions(runtime_library):
    # The binding and the runtime are versioned together with the project (CMake's PROJECT_VERSION).
    assert kiln.__version__ == os.environ["KILN_TEST_VERSION"]
    assert kiln.runtime_version() == os.environ["KILN_TEST_VERSION"]
    assert pathlib.Path(kiln.runtime_library_path()).samefile(runtime_library)


def test_open_lists_kernels_and_targets(package_path):
    with kiln.open(package_path) as package:
        assert package.label == package_path
        assert set(package.kernel_names) == KERNELS
        assert len(package) == len(KERNELS)
        assert sorted(package) == sorted(KERNELS)
        assert sorted(package.targets) == ["compute_75", "sm_80", "sm_90"]


def test_kernels_carry_their_lowered_names(package):
    lowered = {info.name: info.lowered_name for info in package.kernels}
    assert lowered["saxpy"] == "_Z5saxpyfPKfPfi"
    assert lowered["scale<float>"].startswith("_Z5scaleIfEvPT_S0_i")
    assert [info.name for info in package.kernels] == package.kernel_names


def test_open_takes_a_path_object(package_path):
    with kiln.Package.open(pathlib.Path(package_path)) as package:
        assert "saxpy" in package
        assert package.label == package_path


def test_from_bytes_copies(package_bytes):
    data = bytearray(package_bytes)
    package = kiln.Package.from_bytes(data, label="from memory")
    data[:] = bytes(len(data))  # the package must not read the caller's buffer any more
    assert package.label == "from memory"
    assert set(package.kernel_names) == KERNELS
    package.close()


def test_from_bytes_without_a_label(package_bytes):
    with kiln.Package.from_bytes(memoryview(package_bytes)) as package:
        assert package.label == "<memory>"
        assert len(package) == len(KERNELS)


def test_contains_knows_every_spelling(package):
    assert "saxpy" in package
    assert "scale< float >" in package       # names are normalized as the runtime does
    assert "_Z5saxpyfPKfPfi" in package       # the lowered name
    assert "scale<int>" not in package
    assert 42 not in package


def test_a_closed_package_refuses_use(package_path):
    package = kiln.open(package_path)
    package.close()
    package.close()  # closing twice is harmless
    assert "closed" in repr(package)
    with pytest.raises(kiln.InvalidArgumentError, match="package %s is closed" % package_path):
        package.kernel_names
    with pytest.raises(kiln.KilnError, match="closed"):
        package.image("saxpy", arch=90)


def test_the_with_block_closes(package_path):
    with kiln.open(package_path) as package:
        pass
    with pytest.raises(kiln.InvalidArgumentError):
        len(package)


def test_repr_names_the_package(package):
    assert repr(package) == "<kiln.Package %s (6 kernels)>" % package.label
