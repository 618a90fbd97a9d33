"""Opening a package and listing what it holds: no driver needed."""

import os
import pathlib
import re

import pytest

import kiln

KERNELS = {"saxpy", "echo_args", "take_pair", "scale<float>", "scale<double>", "count_up", "shift<float>"}


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


@pytest.mark.parametrize("use", [
    lambda p: p.kernels, lambda p: p.targets, lambda p: list(p), lambda p: "saxpy" in p,
    lambda p: p.image("saxpy", 0), lambda p: p.kernel("saxpy"), lambda p: p.global_address("counter"),
    lambda p: p.preload(),
], ids=["kernels", "targets", "iter", "contains", "image", "kernel", "global_address", "preload"])
def test_every_call_on_a_closed_package_is_refused(package_path, use):
    package = kiln.open(package_path)
    package.close()
    with pytest.raises(kiln.InvalidArgumentError, match="package %s is closed" % re.escape(package_path)):
        use(package)


def test_a_kernel_of_a_closed_package_refuses_use(package_path):
    # Package.kernel needs a GPU; what matters here is only the kernel's link to its package, which
    # must stop a launch before libkiln sees a kernel the package freed. (Its handle is NULL, so a call
    # that got through would fail as "kernel is NULL", not crash.)
    package = kiln.open(package_path)
    kernel = kiln.Kernel.__new__(kiln.Kernel)
    kernel._package, kernel._handle, kernel.name, kernel.param_sizes = package, None, "saxpy", [4, 8, 8, 4]
    package.close()
    closed = "package %s is closed" % re.escape(package_path)
    with pytest.raises(kiln.InvalidArgumentError, match=closed):
        kernel.launch(1, 1, (1.0, None, None, 1))
    with pytest.raises(kiln.InvalidArgumentError, match=closed):
        kernel.handle


def test_names_and_paths_with_a_nul_are_refused(package, package_path):
    # C would read them only up to the NUL: "saxpy\0x" would find saxpy, and the path would open.
    with pytest.raises(kiln.InvalidArgumentError, match="name holds no NUL"):
        package.image("saxpy\0x", arch=90)
    with pytest.raises(kiln.InvalidArgumentError, match="name holds no NUL"):
        package.kernel("saxpy\0x")
    assert "saxpy\0x" not in package
    with pytest.raises(kiln.InvalidArgumentError, match="path holds no NUL"):
        kiln.open(package_path + "\0x")


def test_the_with_block_closes(package_path):
    with kiln.open(package_path) as package:
        pass
    with pytest.raises(kiln.InvalidArgumentError):
        len(package)


def test_repr_names_the_package(package):
    assert repr(package) == "<kiln.Package %s (7 kernels)>" % package.label


# docs/python.md: open reads the index and keeps the file open; images are read from it when first
# needed. So the path may go after the open (as importlib.resources.as_file's temporary copy does)...
def test_images_are_read_from_the_open_file_after_its_path_is_gone(package_path, package_bytes, tmp_path):
    copy = tmp_path / "copy.kiln"
    copy.write_bytes(package_bytes)
    with kiln.open(copy) as package:
        os.remove(copy)
        assert package.image("saxpy", arch=90).data == kiln.Package.from_bytes(package_bytes).image("saxpy",
                                                                                                    arch=90).data


# ... and the images are not read at open: a file overwritten in place afterwards is a PackageError
# naming it, never the new file's bytes under the old index.
def test_a_file_overwritten_after_open_is_a_package_error(package_bytes, tmp_path):
    copy = tmp_path / "copy.kiln"
    copy.write_bytes(package_bytes)
    with kiln.open(copy) as package:
        with open(copy, "r+b") as file:
            file.truncate(len(package_bytes) // 2)
        with pytest.raises(kiln.PackageError, match=re.escape(str(copy)) + ".* has changed since it was opened"):
            package.image("saxpy", arch=90)
