"""Launch geometry, shared memory and streams (kiln._launch), without a GPU."""

import pytest

import kiln
from kiln import _launch


def dims(value):
    d = _launch.dim3("k", "grid", value)
    return (d.x, d.y, d.z)


def test_grid_and_block_take_an_int_or_one_to_three_ints():
    assert dims(5) == (5, 1, 1)
    assert dims((5,)) == (5, 1, 1)
    assert dims((5, 6)) == (5, 6, 1)
    assert dims([5, 6, 7]) == (5, 6, 7)


@pytest.mark.parametrize("value", [0, (1, 0), (), (1, 2, 3, 4), 1.5, "8", 1 << 32])
def test_bad_dimensions_are_refused(value):
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'k': .*grid"):
        dims(value)


def test_shared_memory_is_a_byte_count():
    assert _launch.shared_bytes("k", 65536) == 65536
    for bad in (-1, 1.0, 1 << 32):
        with pytest.raises(kiln.InvalidArgumentError, match="shared_mem must be a byte count"):
            _launch.shared_bytes("k", bad)


class ProtocolStream:
    def __cuda_stream__(self):  # cuda.core's protocol: (version, CUstream address)
        return (0, 0xA000)


class CupyLikeStream:
    ptr = 0xB000


class HandleStream:
    handle = 0xC000


def test_streams_are_found_the_ways_libraries_hold_them():
    assert _launch.stream_handle("k", None) is None
    assert _launch.stream_handle("k", 0) is None
    assert _launch.stream_handle("k", 0x9000) == 0x9000
    assert _launch.stream_handle("k", ProtocolStream()) == 0xA000
    assert _launch.stream_handle("k", CupyLikeStream()) == 0xB000
    assert _launch.stream_handle("k", HandleStream()) == 0xC000


def test_an_object_without_a_stream_is_refused():
    with pytest.raises(kiln.InvalidArgumentError, match="kernel 'k': cannot find a CUstream in 'stream'"):
        _launch.stream_handle("k", "stream")
