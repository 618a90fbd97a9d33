"""Entries a build may not trust, on real servers (servers.py): signed entries (KILN_REMOTE_CACHE_SIGNING_KEY,
KILN_REMOTE_CACHE_VERIFY_KEY, `kiln cache keygen`), entries Kiln cannot parse, and local entries that are
not files. Whatever a server or a cache directory holds, a build either uses an entry it can trust or
compiles: it never fails, hangs or ships a kernel it did not compile or verify.
"""

import os
import stat
import subprocess

import pytest

from kiln_builds import (COMPILES, ENTRIES, KILN, LOOKUPS, build, encode_entry, flip_a_code_bit, fresh_build,
                         is_image_entry, remote_warnings, split_entry, stats, with_image)


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    """Two pairs from `kiln cache keygen`: {"ours"|"theirs": (signing key file, verify key in base64)}."""
    pairs = {}
    for name in ("ours", "theirs"):
        directory = tmp_path_factory.mktemp("keys") / name
        run = subprocess.run([KILN, "cache", "keygen", str(directory)], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        verify = (directory / "kiln-cache-verify.pub").read_text().strip()
        assert f"KILN_REMOTE_CACHE_VERIFY_KEY={verify}" in run.stdout
        pairs[name] = (str(directory / "kiln-cache-signing.key"), verify)
    return pairs


class Entries:
    """The entries on one server, read and rewritten as bytes."""

    def __init__(self, server):
        self.server = server

    def keys(self):
        if hasattr(self.server, "dav_root"):
            return [entry.split("/")[1] for entry in self.server.entries()]
        return [name.removeprefix("kiln:") for name in self.server.command("KEYS", "kiln:*").split()]

    def read(self, key):
        if hasattr(self.server, "dav_root"):
            with open(os.path.join(self.server.dav_root, key[:2], key), "rb") as f:
                return f.read()
        return self.server.get("kiln:" + key)

    def write(self, key, data):
        if hasattr(self.server, "dav_root"):
            with open(os.path.join(self.server.dav_root, key[:2], key), "wb") as f:
                f.write(data)
        else:
            self.server.set("kiln:" + key, data)

    def image_keys(self):
        return [k for k in self.keys() if is_image_entry(split_entry(self.read(k))[2])]


@pytest.fixture(params=["http", "redis"])
def server(request, tmp_path):
    """nginx or redis-server with the project's entries on it, written by a build that signs."""
    return request.getfixturevalue("nginx" if request.param == "http" else "redis")


def fill(project, tmp_path, server, **variables):
    run, run_stats, _ = fresh_build(project, tmp_path, "writer", server.url(), **variables)
    assert run.returncode == 0, run.stderr
    assert run_stats["remote"]["writes"] == ENTRIES, run.stderr
    return Entries(server)


def signing(keys, name="ours"):
    return {"KILN_REMOTE_CACHE_SIGNING_KEY": keys[name][0]}


def verifying(keys, name="ours"):
    return {"KILN_REMOTE_CACHE_VERIFY_KEY": keys[name][1]}


def test_signed_entries_are_verified_hits(project, reference, keys, server, tmp_path):
    entries = fill(project, tmp_path, server, **signing(keys))
    assert all(entries.read(k).startswith(b"kiln-signed 1 ") for k in entries.keys())
    run, run_stats, package = fresh_build(project, tmp_path, "reader", server.url(), **verifying(keys))
    assert run.returncode == 0 and remote_warnings(run) == [], run.stderr
    assert run_stats["remote"]["hits"] == ENTRIES and package == reference
    assert f"remote cache: {ENTRIES} hits, 0 misses (0 damaged, 0 untrusted)" in run.stderr
    # A verify key in a file works as well; and builds without a key read signed entries too.
    key_file = tmp_path / "verify.pub"
    key_file.write_text(keys["ours"][1] + "\n")
    for variables in ({"KILN_REMOTE_CACHE_VERIFY_KEY": str(key_file)}, {}):
        again, again_stats, again_package = fresh_build(project, tmp_path, f"again{len(variables)}", server.url(),
                                                        **variables)
        assert again_stats["remote"]["hits"] == ENTRIES and again_package == reference, again.stderr


@pytest.mark.parametrize("backend", ["s3", "reapi"])
def test_signatures_hold_through_every_backend(project, reference, keys, backend, request, tmp_path):
    """Signing is the layered store's, the same for every row of the backend table: what a build that signs
    writes is a verified hit, and what a build that does not sign writes is a miss to one that verifies."""
    if backend == "s3":
        from test_s3_cache import signed
        variables = signed(request.getfixturevalue("s3"), tmp_path)
        signed_url, plain_url = f"s3://kiln/{tmp_path.name}/signed", f"s3://kiln/{tmp_path.name}/plain"
    else:
        reapi = request.getfixturevalue("reapi")
        variables = {}
        signed_url, plain_url = reapi.url(reapi.fresh_instance()), reapi.url(reapi.fresh_instance())
    writer, writer_stats, _ = fresh_build(project, tmp_path, "signer", signed_url, **variables, **signing(keys))
    assert writer_stats["remote"]["writes"] == ENTRIES, writer.stderr
    run, run_stats, package = fresh_build(project, tmp_path, "verifier", signed_url, **variables, **verifying(keys))
    assert remote_warnings(run) == [] and run_stats["remote"]["hits"] == ENTRIES and package == reference, run.stderr
    plain, plain_stats, _ = fresh_build(project, tmp_path, "plain", plain_url, **variables)
    assert plain_stats["remote"]["writes"] == ENTRIES, plain.stderr
    run, run_stats, package = fresh_build(project, tmp_path, "refuser", plain_url, **variables, **verifying(keys))
    assert package == reference and run_stats["remote"]["hits"] == 0, run.stderr
    assert run_stats["remote"]["untrusted"] >= COMPILES and run_stats["compile"]["misses"] == COMPILES, run.stderr
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "is not signed" in warnings[0], run.stderr


def check_refused(project, reference, tmp_path, server, variables, counter, said):
    """A build with `variables` (a verify key) misses every image, says `said` once, and its package holds
    what it compiled."""
    run, run_stats, package = fresh_build(project, tmp_path, "reader", server.url(), **variables)
    assert run.returncode == 0, run.stderr
    assert package == reference
    assert run_stats["compile"] == {"hits": 0, "misses": COMPILES}
    assert run_stats["remote"][counter] >= COMPILES and run_stats["remote"]["hits"] <= LOOKUPS
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and said in warnings[0], run.stderr
    return warnings[0]


def test_a_tampered_entry_with_its_checksum_recomputed_is_a_miss_with_a_verify_key(project, reference, keys, server,
                                                                                    tmp_path):
    entries = fill(project, tmp_path, server, **signing(keys))
    for key in entries.image_keys():
        line, _, payload = split_entry(entries.read(key))
        entries.write(key, line + encode_entry(key, with_image(payload, flip_a_code_bit)))
    # What the checksum alone lets through: the changed kernel, shipped.
    _, blind_stats, blind_package = fresh_build(project, tmp_path, "blind", server.url())
    assert blind_stats["remote"]["hits"] == ENTRIES and blind_package != reference
    # With the verify key: compiled afresh, and the writer's next build replaces the entries.
    check_refused(project, reference, tmp_path, server, verifying(keys), "untrusted", "signature that does not hold")
    fresh_build(project, tmp_path, "rewriter", server.url(), **signing(keys))
    _, after_stats, after_package = fresh_build(project, tmp_path, "after", server.url(), **verifying(keys))
    assert after_stats["remote"]["hits"] == ENTRIES and after_package == reference


def test_an_unsigned_entry_is_a_miss_with_a_verify_key(project, reference, keys, server, tmp_path):
    fill(project, tmp_path, server)
    warning = check_refused(project, reference, tmp_path, server, verifying(keys), "untrusted", "is not signed")
    assert "replacing" not in warning   # it verifies but does not sign: it writes nothing
    assert fresh_build(project, tmp_path, "no-writes", server.url(), **verifying(keys))[1]["remote"]["writes"] == 0


def test_an_entry_signed_with_another_key_is_a_miss(project, reference, keys, server, tmp_path):
    fill(project, tmp_path, server, **signing(keys, "theirs"))
    check_refused(project, reference, tmp_path, server, verifying(keys), "untrusted", "is signed with key")


def test_a_signed_entry_moved_under_another_key_is_a_miss(project, reference, keys, server, tmp_path):
    entries = fill(project, tmp_path, server, **signing(keys))
    image_keys = entries.image_keys()
    originals = {k: entries.read(k) for k in image_keys}
    for key, other in zip(image_keys, image_keys[1:] + image_keys[:1]):
        entries.write(key, originals[other])   # each signature holds, for the other key
    check_refused(project, reference, tmp_path, server, verifying(keys), "damaged", "is damaged")


@pytest.mark.parametrize("change", ["garbage image", "truncated image", "no image", "not an entry"])
def test_an_entry_kiln_cannot_parse_is_a_miss_and_the_build_succeeds(project, reference, server, tmp_path, change):
    entries = fill(project, tmp_path, server)
    for key in entries.image_keys():
        _, _, payload = split_entry(entries.read(key))
        if change == "not an entry":
            entries.write(key, b"\x7fELF" + os.urandom(100))
            continue
        image = {"garbage image": lambda i: b"\x7fELF\x02\x01\x01" + os.urandom(len(i)),
                 "truncated image": lambda i: i[:len(i) // 2],
                 "no image": lambda i: b""}[change]
        entries.write(key, encode_entry(key, with_image(payload, image)))
    run, run_stats, package = fresh_build(project, tmp_path, "reader", server.url())
    assert run.returncode == 0, run.stderr
    assert package == reference
    assert run_stats["compile"] == {"hits": 0, "misses": COMPILES}


def test_key_settings_a_user_must_fix_stop_the_build(project, keys, tmp_path):
    secret = open(keys["ours"][0]).read().strip()
    cases = [
        ({"KILN_REMOTE_CACHE_SIGNING_KEY": str(tmp_path / "missing")},
         f"KILN_REMOTE_CACHE_SIGNING_KEY: cannot read {tmp_path / 'missing'}: No such file or directory"),
        ({"KILN_REMOTE_CACHE_VERIFY_KEY": "not a key"}, "KILN_REMOTE_CACHE_VERIFY_KEY: not a public key"),
        ({"KILN_REMOTE_CACHE_VERIFY_KEY": secret}, "a signing key, not a verify key"),
        ({**signing(keys), **verifying(keys, "theirs")}, "is not the public half of KILN_REMOTE_CACHE_SIGNING_KEY"),
    ]
    for variables, message in cases:
        run = build(project, tmp_path / "cache", tmp_path / "bad.kiln", "http://127.0.0.1:1/cache", **variables)
        assert run.returncode == 2, run.stderr
        assert message in run.stderr and secret not in run.stderr, run.stderr
        assert not (tmp_path / "bad.kiln").exists()


def test_keygen_writes_a_private_key_and_never_replaces_one(tmp_path):
    directory = tmp_path / "keys"
    first = subprocess.run([KILN, "cache", "keygen", str(directory)], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    signing_key, verify_key = directory / "kiln-cache-signing.key", directory / "kiln-cache-verify.pub"
    assert stat.S_IMODE(os.stat(signing_key).st_mode) == 0o600
    assert sorted(os.listdir(directory)) == ["kiln-cache-signing.key", "kiln-cache-verify.pub"]
    before = signing_key.read_bytes(), verify_key.read_bytes()
    again = subprocess.run([KILN, "cache", "keygen", str(directory)], capture_output=True, text=True)
    assert again.returncode == 4
    assert f"kiln: error: {signing_key} already exists: kiln never replaces a key" in again.stderr
    assert (signing_key.read_bytes(), verify_key.read_bytes()) == before
    unwritable = subprocess.run([KILN, "cache", "keygen", "/proc/self"], capture_output=True, text=True)
    assert unwritable.returncode == 4 and "cannot write /proc/self/kiln-cache-signing.key" in unwritable.stderr
    missing = subprocess.run([KILN, "cache", "keygen"], capture_output=True, text=True)
    assert missing.returncode == 2 and "DIR" in missing.stderr
    usage = subprocess.run([KILN, "cache", "--help"], capture_output=True, text=True)
    assert "keygen" in usage.stdout and "KILN_REMOTE_CACHE_SIGNING_KEY" in usage.stdout


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "socket", "directory"])
def test_a_local_entry_that_is_not_a_file_is_a_miss_without_blocking(project, reference, tmp_path, kind):
    cache = tmp_path / "cache"
    first = build(project, cache, tmp_path / "first.kiln", None)
    assert first.returncode == 0, first.stderr
    entries = [p for p in cache.glob("??/*") if len(p.name) == 32]
    assert len(entries) == ENTRIES
    for path in entries:
        path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "link to /dev/zero":
            path.symlink_to("/dev/zero")
        elif kind == "directory":
            path.mkdir()
        else:
            import socket
            listening = socket.socket(socket.AF_UNIX)
            listening.bind(str(path))
    run = build(project, cache, tmp_path / "second.kiln", None)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "second.kiln").read_bytes() == reference
    assert stats(cache)["compile"]["misses"] == 2 * COMPILES
