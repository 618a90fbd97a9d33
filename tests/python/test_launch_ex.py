"""Kernel.launch with launch attributes, Kernel.attribute and the occupancy queries, without a GPU:
the Kernel is given a stand-in runtime whose C functions record what the binding passes (the
kiln_launch_config it packs, the attribute numbers), and a stand-in for a 0.2 runtime that lacks them."""

import ctypes

import pytest

import kiln
from kiln import _abi, _launch, _library
from kiln._kernel import Kernel


class FakeLib:
    """kiln_* functions that record their arguments and succeed."""

    def __init__(self, with_new_functions=True):
        self.calls = []
        if with_new_functions:
            self.kiln_kernel_launch_ex = self._launch_ex
            self.kiln_kernel_attribute = self._attribute
            self.kiln_kernel_max_active_blocks = self._max_active_blocks
            self.kiln_kernel_suggest_block_size = self._suggest_block_size

    def kiln_version(self):
        return 200

    def kiln_kernel_launch(self, handle, grid, block, shared, stream, pointers, count):
        self.calls.append(("launch", (grid.x, grid.y, grid.z), shared, stream, count))
        return 0

    def _launch_ex(self, handle, config, pointers, count):
        c = config._obj
        self.calls.append(("launch_ex", c.struct_size, (c.grid.x, c.grid.y, c.grid.z), (c.block.x, c.block.y, c.block.z),
                           c.shared_memory_bytes, c.stream, (c.cluster.x, c.cluster.y, c.cluster.z), c.cooperative,
                           c.has_priority, c.priority, count))
        return 0

    def _attribute(self, handle, kind, value):
        self.calls.append(("attribute", kind))
        value._obj.value = 40
        return 0

    def _max_active_blocks(self, handle, block_size, shared, blocks):
        self.calls.append(("max_active_blocks", block_size, shared))
        blocks._obj.value = 6
        return 0

    def _suggest_block_size(self, handle, shared, limit, grid, block):
        self.calls.append(("suggest_block_size", shared, limit))
        grid._obj.value, block._obj.value = 264, 512
        return 0


class FakePackage:
    def __init__(self, lib):
        self._runtime = _library.Runtime(lib, "fake")
        self._runtime._path = "/fake/libkiln.so.0"

    def _live(self):
        return self._runtime, 1


def kernel_with(lib, param_sizes=(8,)):
    kernel = Kernel.__new__(Kernel)  # without __init__, which asks a real runtime
    kernel._package, kernel._handle, kernel.name = FakePackage(lib), 1, "scan<int>"
    kernel.lowered_name, kernel.param_sizes = "_Z4scanIiEvPT_", list(param_sizes)
    return kernel


def test_attributes_reach_kiln_kernel_launch_ex_in_the_config():
    lib = FakeLib()
    kernel_with(lib).launch((4, 2), 128, (0x1000,), shared_mem=1024, stream=0x77, cluster=2, cooperative=True,
                            priority=-1)
    assert lib.calls == [("launch_ex", ctypes.sizeof(_abi.LaunchConfigStruct), (4, 2, 1), (128, 1, 1), 1024, 0x77,
                          (2, 1, 1), 1, 1, -1, 1)]


def test_a_priority_of_zero_is_still_set_and_no_attribute_keeps_the_classic_launch():
    lib = FakeLib()
    kernel = kernel_with(lib)
    kernel.launch(1, 32, (0,), priority=0)
    kernel.launch(1, 32, (0,))
    assert lib.calls[0][0] == "launch_ex" and lib.calls[0][8:10] == (1, 0)
    assert lib.calls[1] == ("launch", (1, 1, 1), 0, None, 1)


def test_the_config_is_the_c_layout():
    # kiln_launch_config on LP64: 8 + 12 + 12 + 4, the stream at 40, cluster at 48, 3 ints: 72 bytes.
    assert ctypes.sizeof(_abi.LaunchConfigStruct) == 72
    assert _abi.LaunchConfigStruct.stream.offset == 40
    assert _abi.LaunchConfigStruct.priority.offset == 68


@pytest.mark.parametrize("value, message", [
    ((2, 0), "every cluster dimension must be at least 1"),
    ((1, 2, 3, 4), "cluster must be an int or 1 to 3 ints"),
    ("2", "cluster must be an int or 1 to 3 ints"),
])
def test_bad_clusters_are_refused(value, message):
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'k': " + message):
        _launch.cluster("k", value)


@pytest.mark.parametrize("value", [1.5, "1", True, 1 << 31])
def test_bad_priorities_are_refused(value):
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'k': priority must be None or an int"):
        _launch.priority("k", value)


def test_attribute_by_name_passes_kilns_number():
    lib = FakeLib()
    assert kernel_with(lib).attribute("registers") == 40
    assert kernel_with(lib).attribute("max_threads_per_block") == 40
    assert lib.calls == [("attribute", 2), ("attribute", 1)]
    assert kiln.KERNEL_ATTRIBUTES["cluster_scheduling_policy"] == 16


def test_an_unknown_attribute_is_refused_with_the_known_ones():
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'scan<int>': no kernel attribute 'regs'; known: "
                                                        "binary_version, cache_mode_ca"):
        kernel_with(FakeLib()).attribute("regs")


def test_occupancy_queries_pass_their_arguments():
    lib = FakeLib()
    kernel = kernel_with(lib)
    assert kernel.max_active_blocks(256, shared_mem=1024) == 6
    assert kernel.suggest_block_size(shared_mem=2048, limit=512) == (264, 512)
    assert lib.calls == [("max_active_blocks", 256, 1024), ("suggest_block_size", 2048, 512)]


@pytest.mark.parametrize("call, message", [
    (lambda k: k.max_active_blocks(0), "block_size must be an int of at least 1, not 0"),
    (lambda k: k.max_active_blocks(32, shared_mem=-1), "shared_mem must be a byte count, not -1"),
    (lambda k: k.suggest_block_size(limit=-1), "limit must be an int of at least 0, not -1"),
])
def test_bad_occupancy_arguments_are_refused(call, message):
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'scan<int>': " + message):
        call(kernel_with(FakeLib()))


# A 0.2 runtime has no launch_ex: the classic launch still works, the new calls name what they need.
@pytest.mark.parametrize("call, purpose, function", [
    (lambda k: k.launch(1, 1, (0,), cooperative=True), "Kernel.launch with cluster, cooperative or priority",
     "kiln_kernel_launch_ex"),
    (lambda k: k.attribute("registers"), "Kernel.attribute", "kiln_kernel_attribute"),
    (lambda k: k.max_active_blocks(32), "Kernel.max_active_blocks", "kiln_kernel_max_active_blocks"),
    (lambda k: k.suggest_block_size(), "Kernel.suggest_block_size", "kiln_kernel_suggest_block_size"),
])
def test_an_older_runtime_names_the_version_the_call_needs(call, purpose, function):
    lib = FakeLib(with_new_functions=False)
    kernel = kernel_with(lib)
    kernel.launch(1, 1, (0,))
    with pytest.raises(kiln.RuntimeLibraryError) as raised:
        call(kernel)
    assert str(raised.value) == ("%s needs %s, which the Kiln runtime library /fake/libkiln.so.0 (version 0.2.0) "
                                 "lacks; it came with version 0.3.0" % (purpose, function))
    assert [c[0] for c in lib.calls] == ["launch"]
