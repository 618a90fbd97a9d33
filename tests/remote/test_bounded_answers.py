"""What a remote cache server can cost a build, however it answers (servers.MisbehavingHttp,
servers.MisbehavingRedis; the HTTP one also as an S3 endpoint, to builds that sign): an answer larger
than any entry is refused, unread when its length comes first, cut off when it does not; a slow server
is asked only until the build has waited KILN_REMOTE_CACHE_BUDGET in all. Each case builds, with the
package a build without the server writes, one warning, and memory and time bounded.
"""

import re

import pytest

import servers
from kiln_builds import build, remote_warnings

MiB = 1 << 20
# The largest entry Kiln stores (store/entry_format.hpp): 256 MiB and a header.
LARGEST_ENTRY = 256 * MiB


@pytest.fixture(scope="module")
def baseline_kib(project, tmp_path_factory):
    """The most memory a build of the project holds without a remote cache."""
    run = build(project, tmp_path_factory.mktemp("cache"), tmp_path_factory.mktemp("out") / "a.kiln", None,
                measure=True)
    assert run.returncode == 0, run.stderr
    return run.peak_kib


PROTOCOLS = ["http", "redis", "s3"]


def build_against(project, reference, tmp_path, protocol, behaviour, delay=0.0, **variables):
    """A build against a misbehaving server: it succeeds with the package a build without the server
    writes, and says one thing of the server. (run, its one warning, the server)."""
    server = (servers.MisbehavingRedis if protocol == "redis" else servers.MisbehavingHttp)(behaviour, delay)
    url = server.url()
    if protocol == "s3":   # signed, so that it writes too; HOME empty, so that no ~/.aws is read
        url = "s3://kiln/bounded"
        (tmp_path / "home").mkdir()
        variables.update(AWS_ENDPOINT_URL_S3=server.endpoint(), AWS_ACCESS_KEY_ID="AKID", AWS_SECRET_ACCESS_KEY="s",
                         HOME=str(tmp_path / "home"))
    return build_against_server(project, reference, tmp_path, server, url, **variables)


def build_against_server(project, reference, tmp_path, server, url, **variables):
    """A build against `server` (stopped after it) at `url`: it succeeds with the package a build without
    the server writes, and says one thing of the server. (run, its one warning, the server)."""
    try:
        run = build(project, tmp_path / "cache", tmp_path / "out.kiln", url, measure=True, **variables)
    finally:
        server.stop()
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out.kiln").read_bytes() == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1, run.stderr
    return run, warnings[0], server


@pytest.mark.parametrize("protocol,behaviour", [(protocol, "oversized") for protocol in PROTOCOLS] +
                         [("redis", "split")])
def test_an_announced_answer_larger_than_any_entry_is_refused_unread(project, reference, baseline_kib, tmp_path,
                                                                    protocol, behaviour):
    run, warning, server = build_against(project, reference, tmp_path, protocol, behaviour)
    assert "larger than any entry" in warning
    # What the sockets' buffers took before Kiln hung up: nothing near one answer, let alone all of them.
    assert server.sent < 64 * MiB * server.requests, f"{server.sent} bytes sent"
    assert run.peak_kib < baseline_kib + 64 * 1024, f"{run.peak_kib} KiB at peak, {baseline_kib} without the server"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_an_endless_answer_is_cut_off_at_the_largest_entry(project, reference, baseline_kib, tmp_path, protocol):
    run, warning, _ = build_against(project, reference, tmp_path, protocol, "endless")
    assert "larger than any entry" in warning or "does not end" in warning, warning
    # At most one entry's worth read at a time, and half as much again while the buffer last grows (a
    # Redis line is refused at 64 KiB).
    assert run.peak_kib < baseline_kib + (LARGEST_ENTRY * 3 // 2 + 64 * MiB) // 1024, \
        f"{run.peak_kib} KiB at peak, {baseline_kib} without the server"


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_slow_server_is_asked_until_the_budget_is_spent_and_said_once(project, reference, tmp_path, protocol):
    alone = build(project, tmp_path / "cache-alone", tmp_path / "alone.kiln", None)
    run, warning, server = build_against(project, reference, tmp_path, protocol, "slow", delay=1.0,
                                         KILN_REMOTE_CACHE_BUDGET="2.5")
    assert "KILN_REMOTE_CACHE_BUDGET=2.5" in warning and "building without it" in warning
    # Two whole requests and a third cut at the budget, and no more (without one: every entry, twice).
    assert server.requests <= 3
    # What Kiln waited by its own clock: the budget, and what a time limit overruns by.
    waited = float(re.search(r"waited ([0-9.]+) s", warning).group(1))
    assert waited <= 2.5 + 0.5, warning
    # By the wall clock, on a machine that may be running other tests beside this one, and measured
    # apart from the build alone: far below what a build that ignored the budget would wait (a second
    # for each of its 6 lookups and 10 writes).
    assert run.seconds < alone.seconds + 2.5 + 6.0, f"{run.seconds:.1f} s; {alone.seconds:.1f} s alone"
