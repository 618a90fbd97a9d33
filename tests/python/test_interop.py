"""The CuPy and cuda.core glue (kiln._interop) with stand-in modules, so it is checked without a
GPU: where the image goes for CuPy (a memory file on Linux, else a private temporary file that is
then removed), and both cuda.core APIs."""

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


@pytest.fixture
def no_memory_file(monkeypatch):
    """As on a system without os.memfd_create (Windows, macOS): the private temporary file."""
    monkeypatch.delattr(os, "memfd_create", raising=False)


def test_cupy_loads_a_private_file_that_is_then_removed(package, private_temp, no_memory_file):
    image = package.image("saxpy", arch=90)
    cupy = FakeCupy()
    assert _interop._load_with_cupy(cupy, image) == ("kernel", "_Z5saxpyfPKfPfi")
    assert os.path.dirname(cupy.seen["path"]) == str(private_temp)
    assert cupy.seen["path"].endswith(".cubin")
    assert cupy.seen["mode"] == 0o600
    assert cupy.seen["data"] == image.data
    assert os.listdir(private_temp) == []


def test_the_file_is_removed_when_cupy_fails(package, private_temp, no_memory_file):
    with pytest.raises(RuntimeError, match="cuModuleLoad failed"):
        _interop._load_with_cupy(FakeCupy(fail=True), package.image("saxpy", arch=75))
    assert os.listdir(private_temp) == []


def test_a_ptx_file_for_cupy(package, private_temp, no_memory_file):
    cupy = FakeCupy()
    _interop._load_with_cupy(cupy, package.image("saxpy", arch=75))
    assert cupy.seen["path"].endswith(".ptx") and b".entry _Z5saxpyfPKfPfi" in cupy.seen["data"]


needs_memory_files = pytest.mark.skipif(not hasattr(os, "memfd_create") or not os.path.isdir("/proc/self/fd"),
                                        reason="no os.memfd_create or /proc/self/fd here: the temporary file serves")


@needs_memory_files
def test_on_linux_cupy_loads_a_memory_file_that_nothing_on_disk_holds(package, private_temp):
    cupy = FakeCupy()
    for arch in (90, 75):   # a cubin, then PTX
        image = package.image("saxpy", arch=arch)
        assert _interop._load_with_cupy(cupy, image) == ("kernel", "_Z5saxpyfPKfPfi")
        assert cupy.seen["path"].startswith("/proc/self/fd/") and cupy.seen["data"] == image.data
        # CuPy remembers the module by this path: the file stays open, so no later image gets the path.
        descriptor = int(cupy.seen["path"].rsplit("/", 1)[1])
        assert descriptor in _interop._memory_files and os.fstat(descriptor).st_size == len(image.data)
    first, second = _interop._memory_files[-2:]
    assert first != second
    assert os.listdir(private_temp) == []


@needs_memory_files
def test_where_proc_does_not_show_the_memory_file_the_temporary_file_serves(package, private_temp, monkeypatch):
    real_stat = os.stat

    def no_proc(path, *args, **kwargs):
        if str(path).startswith("/proc/self/fd/"):
            raise FileNotFoundError(path)
        return real_stat(path, *args, **kwargs)
    monkeypatch.setattr(os, "stat", no_proc)
    held = len(_interop._memory_files)
    cupy = FakeCupy()
    _interop._load_with_cupy(cupy, package.image("saxpy", arch=90))
    assert os.path.dirname(cupy.seen["path"]) == str(private_temp) and cupy.seen["mode"] == 0o600
    assert len(_interop._memory_files) == held   # the memory file was closed, not kept
    assert os.listdir(private_temp) == []


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
