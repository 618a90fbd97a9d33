"""A split package (kiln split) from Python: kiln.open on the main file finds its companions beside
it; without the companion of a device's major the PTX serves. No driver: Package.image(arch=...)."""

import os
import shutil

import pytest

import kiln


@pytest.fixture
def split_dir(package_path, tmp_path):
    """A copy of split/ (python_test.kiln and its cc8 and cc9 companions) to take files from."""
    source = os.path.join(os.path.dirname(package_path), "split")
    if not os.path.isfile(os.path.join(source, "python_test.kiln")):
        pytest.fail("the split test package is missing from %s (build the target python_test_package)" % source)
    shutil.copytree(source, tmp_path / "split")
    return tmp_path / "split"


def test_each_major_loads_from_its_companion(split_dir):
    with kiln.open(split_dir / "python_test.kiln") as package:
        assert package.targets == ["compute_75"]   # the main file's own images
        assert package.image("saxpy", arch=90).target == "sm_90"
        assert package.image("saxpy", arch=86).target == "sm_80"
        assert package.coverage("saxpy", 90) == "cubin"
        assert package.image("saxpy", arch=120).target == "compute_75"   # no cc12 in this split


def test_without_the_companion_the_ptx_serves(split_dir):
    os.remove(split_dir / "python_test.cc9.kiln")
    with kiln.open(split_dir / "python_test.kiln") as package:
        image = package.image("saxpy", arch=90)
        assert (image.kind, image.target) == ("ptx", "compute_75")
        assert package.coverage("saxpy", 90) == "ptx"
        assert package.image("saxpy", arch=89).target == "sm_80"   # cc8 is still there


def test_a_companion_of_another_build_is_refused_naming_it(split_dir):
    shutil.copy(split_dir / "python_test.cc8.kiln", split_dir / "python_test.cc9.kiln")
    with kiln.open(split_dir / "python_test.kiln") as package:
        with pytest.raises(kiln.PackageError) as raised:
            package.image("saxpy", arch=90)
        assert raised.value.status_name == "CORRUPT"
        message = str(raised.value)
        assert str(split_dir / "python_test.cc9.kiln") in message
        assert "it is not the split's cc9 file" in message
