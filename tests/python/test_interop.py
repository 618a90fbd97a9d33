"""The CuPy and cuda.core glue (kiln._interop) with stand-in modules, so it is checked without a
GPU: where the image goes for CuPy and that it is removed, and both cuda.core APIs."""

import os
import stat
import tempfile
import types

import pytest

from kiln import _interop


class FakeCupy:
    """Records what cupy.RawModule(path=...).get_function(name) saw when it loaded the file."""

    def __init__(self, fail=False):
        self.seen = {}
        self.fail = fail
        fake = self

        class RawModule:
            def __init__(self, *, path):
                self.path = path

            def get_function(self, name):
                with open(self.path, "rb") as file:
                    fake.seen = {"path": self.path, "name": name, "data": file.read(),
                                 "mode": stat.S_IMODE(os.stat(self.path).st_mode)}
                if fake.fail:
                    raise RuntimeError("cuModuleLoad failed")
                return ("kernel", name)
        self.RawModule = RawModule


@pytest.fixture
def private_temp(tmp_path, monkeypatch):
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def test_cupy_loads_a_private_file_that_is_then_removed(package, private_temp):
    image = package.image("saxpy", arch=90)
    cupy = FakeCupy()
    assert _interop._load_with_cupy(cupy, image) == ("kernel", "_Z5saxpyfPKfPfi")
    assert os.path.dirname(cupy.seen["path"]) == str(private_temp)
    assert cupy.seen["path"].endswith(".cubin")
    assert cupy.seen["mode"] == 0o600
    assert cupy.seen["data"] == image.data
    assert os.listdir(private_temp) == []


def test_the_file_is_removed_when_cupy_fails(package, private_temp):
    with pytest.raises(RuntimeError, match="cuModuleLoad failed"):
        _interop._load_with_cupy(FakeCupy(fail=True), package.image("saxpy", arch=75))
    assert os.listdir(private_temp) == []


def test_a_ptx_file_for_cupy(package, private_temp):
    cupy = FakeCupy()
    _interop._load_with_cupy(cupy, package.image("saxpy", arch=75))
    assert cupy.seen["path"].endswith(".ptx") and b".entry _Z5saxpyfPKfPfi" in cupy.seen["data"]


class NewObjectCode:
    """cuda.core 0.2 and later: ObjectCode.from_cubin / from_ptx."""
    calls = []

    @classmethod
    def from_cubin(cls, data):
        cls.calls.append(("cubin", data))
        return cls()

    @classmethod
    def from_ptx(cls, data):
        cls.calls.append(("ptx", data))
        return cls()


class OldObjectCode:
    """cuda.core.experimental 0.1: ObjectCode(module, code_type)."""

    def __init__(self, module, code_type):
        self.module, self.code_type = module, code_type


def test_both_cuda_core_apis(package):
    cubin, ptx = package.image("saxpy", arch=90), package.image("saxpy", arch=75)
    new = types.SimpleNamespace(ObjectCode=NewObjectCode)
    NewObjectCode.calls.clear()
    _interop._object_code(new, cubin)
    _interop._object_code(new, ptx)
    assert NewObjectCode.calls == [("cubin", cubin.data), ("ptx", ptx.data)]
    old = _interop._object_code(types.SimpleNamespace(ObjectCode=OldObjectCode), ptx)
    assert (old.module, old.code_type) == (ptx.data, "ptx")


def test_cuda_core_experimental_is_found_when_cuda_core_has_no_object_code(monkeypatch):
    import sys
    cuda = types.ModuleType("cuda")
    core = types.ModuleType("cuda.core")          # cuda.core 0.x: only a namespace
    experimental = types.ModuleType("cuda.core.experimental")
    experimental.ObjectCode = OldObjectCode
    cuda.core, core.experimental = core, experimental
    for name, module in (("cuda", cuda), ("cuda.core", core), ("cuda.core.experimental", experimental)):
        monkeypatch.setitem(sys.modules, name, module)
    assert _interop._import_cuda_core() is experimental
    del experimental.ObjectCode
    with pytest.raises(ImportError, match="cuda.core has no ObjectCode; cuda.core.experimental has no ObjectCode"):
        _interop._import_cuda_core()
