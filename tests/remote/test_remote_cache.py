"""The remote compile cache against real servers on loopback (servers.py): nginx with WebDAV and
redis-server. Each build runs the real kiln on a small project (kiln_builds.py) with a local cache of
its own, so what it does not compile or scan came from the server. Signed and unparsable entries:
test_signed_entries.py; servers that answer too much or too slowly: test_bounded_answers.py.

    KILN=<kiln executable> python -m pytest tests/remote      (ctest: remote_cache_servers)
"""

import json
import os

import pytest

import servers
from kiln_builds import COMPILES, ENTRIES, LOOKUPS, SCANS, build, fresh_build, remote_warnings


def check_filled_then_served(project, tmp_path, reference, url, **variables):
    first, first_stats, first_package = fresh_build(project, tmp_path, "first", url, **variables)
    assert first.returncode == 0, first.stderr
    assert first_stats["compile"] == {"hits": 0, "misses": COMPILES}, first.stderr
    assert first_stats["remote"]["misses"] == LOOKUPS and first_stats["remote"]["writes"] == ENTRIES, first.stderr
    second, second_stats, second_package = fresh_build(project, tmp_path, "second", url, **variables)
    assert second.returncode == 0, second.stderr
    assert second_stats["compile"] == {"hits": COMPILES, "misses": 0}
    assert second_stats["scan"] == {"hits": SCANS, "misses": 0}
    assert second_stats["remote"]["hits"] == ENTRIES
    assert second_stats["remote"]["misses"] == 0 and second_stats["remote"]["errors"] == 0
    assert f"remote cache: {ENTRIES} hits, 0 misses" in second.stderr
    assert first_package == reference and second_package == reference
    assert remote_warnings(first) == [] and remote_warnings(second) == []
    # Remote hits were written back: a third build with the second's cache finds them locally.
    third = build(project, tmp_path / "cache-second", tmp_path / "third.kiln", url, **variables)
    assert "remote cache: 0 hits, 0 misses" in third.stderr


def test_http_second_build_is_all_remote_hits(project, reference, nginx, tmp_path):
    check_filled_then_served(project, tmp_path, reference, nginx.url())
    entries = nginx.entries()
    assert len(entries) == ENTRIES
    for entry in entries:   # <k0k1>/<key>: the layout of the local store and ccache's HTTP backend
        directory, key = entry.split("/")
        assert len(key) == 32 and key[:2] == directory


def test_redis_second_build_is_all_remote_hits(project, reference, redis, tmp_path):
    check_filled_then_served(project, tmp_path, reference, redis.url())
    assert len(redis.command("KEYS", "kiln:*").split()) == ENTRIES


def test_redis_database_from_the_url(project, reference, redis, tmp_path):
    run, _, package = fresh_build(project, tmp_path, "db3", redis.url(3))
    assert run.returncode == 0 and package == reference
    assert redis.command("-n", "3", "DBSIZE").strip() == str(ENTRIES)
    assert redis.command("-n", "0", "DBSIZE").strip() == "0"


@pytest.mark.parametrize("kind", ["http", "redis"])
def test_server_down_builds_with_one_warning(project, reference, tmp_path, kind):
    with servers.RefusingPort() as refusing:
        port = refusing.port
        url = f"http://127.0.0.1:{port}/cache" if kind == "http" else f"redis://127.0.0.1:{port}"
        run, run_stats, package = fresh_build(project, tmp_path, "down", url)
    assert run.returncode == 0, run.stderr
    assert package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1, run.stderr
    assert f"127.0.0.1:{port}" in warnings[0] and "building without it" in warnings[0]
    # Not asked again after the first failure: one error, whatever the number of compiles.
    assert run_stats["remote"]["errors"] == 1
    assert run_stats["compile"]["misses"] == COMPILES


def test_a_server_that_never_answers_times_out(project, reference, tmp_path):
    silent = servers.SilentServer()
    try:
        run, run_stats, package = fresh_build(project, tmp_path, "silent", f"http://127.0.0.1:{silent.port}/cache",
                                              KILN_REMOTE_CACHE_TIMEOUT="0.5")
    finally:
        silent.stop()
    assert run.returncode == 0, run.stderr
    assert package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "timed out" in warnings[0].lower(), run.stderr
    assert run_stats["remote"]["errors"] == 1


def test_http_server_errors_fall_back_to_compiling(project, reference, nginx, tmp_path):
    run, run_stats, package = fresh_build(project, tmp_path, "broken", nginx.url("broken"))
    assert run.returncode == 0, run.stderr
    assert package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "HTTP 500" in warnings[0], run.stderr
    # A server that answers with errors is asked again: every get of the build erred, and every put of
    # a compile's key and image (scan results, stored by worker processes, reach the server only after
    # a miss).
    assert run_stats["remote"]["errors"] == LOOKUPS + 2 * COMPILES
    assert run_stats["remote"]["hits"] == 0


def corrupt_every_entry(paths):
    for path in paths:
        with open(path, "r+b") as f:
            data = bytearray(f.read())
            data[-1] ^= 0xFF   # the last payload byte: only the checksum can tell
            f.seek(0)
            f.write(data)


def test_http_corrupt_entries_are_misses_and_replaced(project, reference, nginx, tmp_path):
    first, _, _ = fresh_build(project, tmp_path, "fill", nginx.url())
    assert first.returncode == 0, first.stderr
    corrupt_every_entry(os.path.join(nginx.dav_root, e) for e in nginx.entries())
    run, run_stats, package = fresh_build(project, tmp_path, "corrupt", nginx.url())
    assert run.returncode == 0, run.stderr
    assert package == reference
    # A damaged key is a miss: the images behind it are not asked for.
    assert run_stats["remote"]["damaged"] == LOOKUPS and run_stats["remote"]["hits"] == 0
    assert run_stats["compile"]["misses"] == COMPILES
    assert len(remote_warnings(run)) == 1 and "damaged" in remote_warnings(run)[0]
    check_damage_replaced(project, reference, tmp_path, nginx.url())


def check_damage_replaced(project, reference, tmp_path, url):
    # The build replaced the keys and scans it found damaged; the images behind the keys it never asked
    # for, so the next build finds those damaged and replaces them, and the one after hits every entry.
    healing, healing_stats, healing_package = fresh_build(project, tmp_path, "healing", url)
    assert healing_stats["remote"]["damaged"] == COMPILES and healing_package == reference, healing.stderr
    again, again_stats, again_package = fresh_build(project, tmp_path, "after", url)
    assert again_stats["remote"]["hits"] == ENTRIES and again_package == reference, again.stderr


def test_redis_garbage_is_a_miss(project, reference, redis, tmp_path):
    first, _, _ = fresh_build(project, tmp_path, "fill", redis.url())
    assert first.returncode == 0, first.stderr
    for key in redis.command("KEYS", "kiln:*").split():
        redis.command("SET", key, "not an entry")
    run, run_stats, package = fresh_build(project, tmp_path, "garbage", redis.url())
    assert run.returncode == 0 and package == reference
    assert run_stats["remote"]["damaged"] == LOOKUPS
    check_damage_replaced(project, reference, tmp_path, redis.url())


def test_read_mode_never_writes(project, reference, nginx, redis, tmp_path):
    for url in (nginx.url(), redis.url()):
        run, run_stats, package = fresh_build(project, tmp_path, "read" + str(len(url)), url,
                                              KILN_REMOTE_CACHE_MODE="read")
        assert run.returncode == 0, run.stderr
        assert package == reference
        assert run_stats["remote"]["misses"] == LOOKUPS and run_stats["remote"]["writes"] == 0
    assert nginx.entries() == []
    assert redis.command("DBSIZE").strip() == "0"
    # A consumer reads what a writer stored.
    writer, _, _ = fresh_build(project, tmp_path, "writer", nginx.url())
    assert writer.returncode == 0
    reader, reader_stats, _ = fresh_build(project, tmp_path, "reader", nginx.url(), KILN_REMOTE_CACHE_MODE="read")
    assert reader_stats["remote"]["hits"] == ENTRIES and reader_stats["remote"]["writes"] == 0


def test_bearer_token(project, reference, nginx, tmp_path):
    run, run_stats, _ = fresh_build(project, tmp_path, "token", nginx.url("token"), KILN_REMOTE_CACHE_TOKEN="sekrit")
    assert run.returncode == 0 and remote_warnings(run) == [], run.stderr
    assert run_stats["remote"]["writes"] == ENTRIES
    refused, _, package = fresh_build(project, tmp_path, "no-token", nginx.url("token"))
    assert refused.returncode == 0 and package == reference
    warnings = remote_warnings(refused)
    assert len(warnings) == 1 and "HTTP 401" in warnings[0] and "KILN_REMOTE_CACHE_TOKEN" in warnings[0]


def test_basic_auth_from_the_url_and_the_password_never_shown(project, nginx, tmp_path):
    good = nginx.url("basic").replace("http://", "http://u:p@")
    run, run_stats, _ = fresh_build(project, tmp_path, "basic", good)
    assert run.returncode == 0 and remote_warnings(run) == [], run.stderr
    assert run_stats["remote"]["writes"] == ENTRIES
    wrong = nginx.url("basic").replace("http://", "http://u:hunter2@")
    refused, refused_stats, _ = fresh_build(project, tmp_path, "wrong", wrong)
    assert refused.returncode == 0
    assert "HTTP 401" in remote_warnings(refused)[0]
    assert "hunter2" not in refused.stderr and "u:***@" in refused.stderr
    assert "hunter2" not in json.dumps(refused_stats)


@pytest.mark.parametrize("variable,value,message", [
    ("KILN_REMOTE_CACHE", "ftp://127.0.0.1/cache", "not a remote cache Kiln speaks (http://, https://, redis://"),
    ("KILN_REMOTE_CACHE", "redis://127.0.0.1:6379/zero", "is not a database number"),
    ("KILN_REMOTE_CACHE_MODE", "write", "not read (never write) or read-write"),
    ("KILN_REMOTE_CACHE_TIMEOUT", "-1", "not a number of seconds"),
])
def test_settings_a_user_must_fix_stop_the_build(project, tmp_path, variable, value, message):
    variables = {"KILN_REMOTE_CACHE": "http://127.0.0.1:1/cache", variable: value}
    run = build(project, tmp_path / "cache", tmp_path / "bad.kiln", variables.pop("KILN_REMOTE_CACHE"), **variables)
    assert run.returncode == 2, run.stderr
    assert f"{variable}={value}" in run.stderr and message in run.stderr
    assert not (tmp_path / "bad.kiln").exists()
