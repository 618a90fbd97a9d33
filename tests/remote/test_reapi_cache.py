"""The REAPI cache (KILN_REMOTE_CACHE=grpc://host:port/instance, grpcs://) against BuildGrid on loopback
(servers.Reapi: one server for the session, fresh instances per test), with the real kiln on the small
project of kiln_builds.py. What is checked on the server is read as any REAPI client reads it
(servers.ReapiClient); servers.ReapiProxy, in front of BuildGrid, counts the calls, announces a small
batch limit or speaks TLS.

    KILN=<kiln executable> python -m pytest tests/remote/test_reapi_cache.py     (ctest: remote_cache_servers)
"""

import hashlib
import os

import servers
from kiln_builds import COMPILES, ENTRIES, LOOKUPS, build, fresh_build, remote_warnings, split_entry
from test_remote_cache import check_filled_then_served

# What a batch call carries besides the blobs and the instance name (digests.hpp's k_batch_overhead).
BATCH_OVERHEAD = 1024


def key_action(key):
    """The Command and the Action of the store's key, encoded as generator/src/remote/reapi/digests.hpp
    says (here by BuildGrid's messages and Python's protobuf): (command bytes, action bytes)."""
    from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as rex

    def digest(data):
        return rex.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))
    command = rex.Command(arguments=["kiln-entry", "1", key], output_paths=["kiln-entry"])
    command = command.SerializeToString(deterministic=True)
    action = rex.Action(command_digest=digest(command), input_root_digest=digest(b""))
    return command, action.SerializeToString(deterministic=True)


def local_keys(cache):
    """The keys of the entries in a local cache: files named by 32 hex digits."""
    return sorted(name for _, _, files in os.walk(cache) for name in files
                  if len(name) == 32 and all(c in "0123456789abcdef" for c in name))


def server_entries(reapi, instance, keys):
    """{key: the blob the key's action result names}, each checked as valid: the key's action is an
    Action in the CAS, whose Command is in the CAS and names the entry (kiln-entry, its key), and its
    result in the action cache has exit code 0 and one output file, kiln-entry, whose blob is in the
    CAS, matches its digest and is the entry of that key."""
    client = servers.ReapiClient(reapi.address, instance)
    messages = client.messages
    try:
        entries = {}
        for key in keys:
            command_bytes, action_bytes = key_action(key)
            action_digest = client.digest(action_bytes)
            assert client.missing([action_digest]) == []
            action = messages.Action.FromString(client.read_blob(action_digest))
            assert action.input_root_digest == client.digest(b"")   # the empty Directory
            assert client.missing([action.command_digest]) == []
            command = messages.Command.FromString(client.read_blob(action.command_digest))
            assert list(command.arguments) == ["kiln-entry", "1", key] and list(command.output_paths) == ["kiln-entry"]
            # Nothing else set, and Kiln's bytes are protobuf's deterministic encoding of them.
            assert client.read_blob(action.command_digest) == command_bytes
            assert messages.Command(arguments=command.arguments, output_paths=command.output_paths) == command
            assert messages.Action(command_digest=action.command_digest,
                                   input_root_digest=action.input_root_digest) == action

            result = client.action_result(action_bytes)
            assert result is not None, f"no action result for {key}"
            assert result.exit_code == 0
            assert [f.path for f in result.output_files] == ["kiln-entry"]
            digest = result.output_files[0].digest
            assert client.missing([digest]) == []
            blob = client.read_blob(digest)
            assert hashlib.sha256(blob).hexdigest() == digest.hash and len(blob) == digest.size_bytes
            assert split_entry(blob)[1] == key
            entries[key] = blob
        return entries
    finally:
        client.close()


def test_second_build_is_all_remote_hits(project, reference, reapi, tmp_path):
    instance = reapi.fresh_instance()
    check_filled_then_served(project, tmp_path, reference, reapi.url(instance))
    keys = local_keys(tmp_path / "cache-first")
    assert len(keys) == ENTRIES
    assert len(server_entries(reapi, instance, keys)) == ENTRIES


def test_entries_over_the_batch_limit_go_by_byte_stream(project, reference, reapi, tmp_path):
    instance = reapi.fresh_instance()
    # Some of the project's entries are larger, some smaller, and two (1268 and 1348 bytes as built
    # here, in a room of 1374) fit alone but not with the 199 bytes of their Command and Action.
    max_batch = 2400
    proxy = servers.ReapiProxy(reapi.address, max_batch=max_batch)
    try:
        check_filled_then_served(project, tmp_path, reference, f"grpc://{proxy.address}/{instance}")
    finally:
        proxy.stop()
    entries = server_entries(reapi, instance, local_keys(tmp_path / "cache-first"))
    # A put's blobs share one batch call while they fit together, the smallest first: the Command and
    # the Action always, the entry when it fits with them (else by byte stream). A read is the entry alone.
    room = max_batch - BATCH_OVERHEAD - len(instance)
    streamed_writes = sum(len(blob) + sum(map(len, key_action(key))) > room for key, blob in entries.items())
    streamed_reads = sum(len(blob) > room for blob in entries.values())
    assert 0 < streamed_reads <= streamed_writes < ENTRIES, [len(blob) for blob in entries.values()]
    calls = proxy.calls
    # The first build writes every entry, the second reads every one, each by the way its size says.
    assert calls["ContentAddressableStorage/FindMissingBlobs"] == ENTRIES   # one for each put's three blobs
    assert calls["ContentAddressableStorage/BatchUpdateBlobs"] == ENTRIES and calls["ByteStream/Write"] == streamed_writes
    assert calls["ActionCache/UpdateActionResult"] == ENTRIES
    assert calls["ByteStream/Read"] == streamed_reads
    assert calls["ContentAddressableStorage/BatchReadBlobs"] == ENTRIES - streamed_reads
    assert calls["Capabilities/GetCapabilities"] == 2, calls   # once per build


def test_a_blob_that_does_not_match_its_digest_is_a_miss(project, reference, reapi, tmp_path):
    instance = reapi.fresh_instance()
    fill, _, _ = fresh_build(project, tmp_path, "fill", reapi.url(instance))
    assert fill.returncode == 0, fill.stderr
    changed = 0
    for path in reapi.blob_files(instance):
        with open(path, "r+b") as f:
            data = bytearray(f.read())
            if not data.startswith(b"kiln-store 1 "):
                continue   # BuildGrid's own action results
            data[-1] ^= 0xFF   # the last payload byte
            f.seek(0)
            f.write(data)
            changed += 1
    assert changed == ENTRIES
    run, run_stats, package = fresh_build(project, tmp_path, "changed", reapi.url(instance))
    assert run.returncode == 0, run.stderr
    assert package == reference
    assert run_stats["remote"]["hits"] == 0 and run_stats["compile"]["misses"] == COMPILES
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "does not match its digest" in warnings[0], run.stderr
    assert "compiling what it cannot give" in warnings[0]


def test_read_mode_never_writes(project, reference, reapi, tmp_path):
    instance = reapi.fresh_instance()
    url = reapi.url(instance)
    run, run_stats, package = fresh_build(project, tmp_path, "read", url, KILN_REMOTE_CACHE_MODE="read")
    assert run.returncode == 0, run.stderr
    assert package == reference and remote_warnings(run) == []
    assert run_stats["remote"]["misses"] == LOOKUPS and run_stats["remote"]["writes"] == 0
    assert reapi.blob_files(instance) == []
    # A consumer reads what a writer stored, and adds nothing.
    writer, _, _ = fresh_build(project, tmp_path, "writer", url)
    assert writer.returncode == 0, writer.stderr
    stored = reapi.blob_files(instance)
    assert stored
    reader, reader_stats, reader_package = fresh_build(project, tmp_path, "reader", url, KILN_REMOTE_CACHE_MODE="read")
    assert reader_stats["remote"]["hits"] == ENTRIES and reader_stats["remote"]["writes"] == 0
    assert reader_package == reference
    assert reapi.blob_files(instance) == stored


def test_an_unknown_instance_is_one_warning(project, reference, reapi, tmp_path):
    run, run_stats, package = fresh_build(project, tmp_path, "unknown", reapi.url(reapi.unknown_instance))
    assert run.returncode == 0, run.stderr
    assert package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1, run.stderr
    assert "INVALID_ARGUMENT from ActionCache.GetActionResult" in warnings[0], warnings[0]
    assert f"/{reapi.unknown_instance})" in warnings[0]
    assert run_stats["remote"]["hits"] == 0 and run_stats["compile"]["misses"] == COMPILES


def test_a_server_that_is_down_costs_one_warning(project, reference, tmp_path):
    with servers.RefusingPort() as refusing:
        port = refusing.port
        run, run_stats, package = fresh_build(project, tmp_path, "down", f"grpc://127.0.0.1:{port}/main")
    assert run.returncode == 0, run.stderr
    assert package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1, run.stderr
    assert f"127.0.0.1:{port}" in warnings[0] and "UNAVAILABLE" in warnings[0] and "building without it" in warnings[0]
    assert run_stats["remote"]["errors"] == 1 and run_stats["compile"]["misses"] == COMPILES


def test_a_server_that_never_answers_costs_the_connect_timeout(project, reference, tmp_path):
    silent = servers.SilentServer()   # takes the connection, never speaks HTTP/2
    try:
        run, run_stats, package = fresh_build(project, tmp_path, "silent", f"grpc://127.0.0.1:{silent.port}/main",
                                              KILN_REMOTE_CACHE_CONNECT_TIMEOUT="0.5")
    finally:
        silent.stop()
    assert run.returncode == 0, run.stderr
    assert package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "cannot connect to 127.0.0.1" in warnings[0] and "within 500 ms" in warnings[0], \
        run.stderr
    assert run_stats["remote"]["errors"] == 1
    assert run.seconds < 30, f"{run.seconds:.1f} s"


def test_the_bearer_token_passes_buildgrids_jwt_authorization(project, reference, reapi, tmp_path):
    instance = reapi.fresh_instance(secured=True)
    url = reapi.url(instance)
    token = reapi.token()
    run, run_stats, _ = fresh_build(project, tmp_path, "token", url, KILN_REMOTE_CACHE_TOKEN=token)
    assert run.returncode == 0 and remote_warnings(run) == [], run.stderr
    assert run_stats["remote"]["writes"] == ENTRIES
    for name, variables in (("none", {}), ("wrong", {"KILN_REMOTE_CACHE_TOKEN": "sekrit-but-not-a-jwt"})):
        refused, refused_stats, package = fresh_build(project, tmp_path, name, url, **variables)
        assert refused.returncode == 0 and package == reference, refused.stderr
        warnings = remote_warnings(refused)
        assert len(warnings) == 1, refused.stderr
        assert "UNAUTHENTICATED" in warnings[0] and "KILN_REMOTE_CACHE_TOKEN" in warnings[0]
        assert "sekrit" not in refused.stderr
        assert refused_stats["remote"]["hits"] == 0
    again, again_stats, again_package = fresh_build(project, tmp_path, "again", url, KILN_REMOTE_CACHE_TOKEN=token)
    assert again_stats["remote"]["hits"] == ENTRIES and again_package == reference, again.stderr


def test_grpcs_trusts_only_a_certificate_of_its_roots(project, reference, reapi, tmp_path):
    tls = servers.self_signed_certificate(tmp_path)
    instance = reapi.fresh_instance()
    proxy = servers.ReapiProxy(reapi.address, tls=tls)
    url = f"grpcs://127.0.0.1:{proxy.port}/{instance}"
    try:
        run, run_stats, package = fresh_build(project, tmp_path, "trusted", url, SSL_CERT_FILE=tls["file"])
        assert run.returncode == 0 and remote_warnings(run) == [], run.stderr
        assert run_stats["remote"]["writes"] == ENTRIES and package == reference
        # The system's roots do not hold the test's certificate: the server cannot be trusted.
        untrusted, untrusted_stats, untrusted_package = fresh_build(project, tmp_path, "untrusted", url, SSL_CERT_FILE="")
    finally:
        proxy.stop()
    assert untrusted.returncode == 0 and untrusted_package == reference
    warnings = remote_warnings(untrusted)
    assert len(warnings) == 1 and "UNAVAILABLE" in warnings[0] and "building without it" in warnings[0], untrusted.stderr
    assert untrusted_stats["remote"]["hits"] == 0 and untrusted_stats["remote"]["errors"] == 1


MiB = 1 << 20


def build_against_misbehaving(project, reference, tmp_path, behaviour):
    """A build against a servers.MisbehavingReapi: it succeeds with the reference package and one
    warning. (run, the warning, the server)."""
    from test_bounded_answers import build_against_server
    server = servers.MisbehavingReapi(behaviour)
    return build_against_server(project, reference, tmp_path, server, server.url())


def peak_kib_without_answers(project, tmp_path):
    """What a build against a gRPC cache holds at peak without any answer: the same code, gRPC loaded."""
    with servers.RefusingPort() as refusing:
        down = build(project, tmp_path / "cache-down", tmp_path / "down.kiln", f"grpc://127.0.0.1:{refusing.port}/main",
                     measure=True)
    return down.peak_kib


def test_a_byte_stream_longer_than_its_blob_is_cut_off(project, reference, tmp_path):
    down_kib = peak_kib_without_answers(project, tmp_path)
    run, warning, server = build_against_misbehaving(project, reference, tmp_path, "endless")
    assert "ByteStream.Read sent more than the 16777216 bytes of blob" in warning, warning
    # Each read stops once it passes the 16 MiB its digest promised: what the sockets and gRPC's
    # HTTP/2 window held by then was sent too, but not the endless rest.
    assert server.sent < server.requests * 48 * MiB, f"{server.sent} bytes sent in {server.requests} reads"
    # The blob, once, and what the transport buffers.
    assert run.peak_kib < down_kib + 64 * 1024, f"{run.peak_kib} KiB at peak, {down_kib} without answers"


def test_an_answer_of_many_small_messages_is_refused(project, reference, tmp_path):
    # A result of 200,000 output files: MiBs on the wire, past the 64 KiB an action result may have.
    run, warning, _ = build_against_misbehaving(project, reference, tmp_path, "crowded")
    assert "RESOURCE_EXHAUSTED from ActionCache.GetActionResult" in warning, warning


def test_a_compressed_answer_is_refused_uninflated(project, reference, tmp_path):
    # gRPC inflates a message whole before it checks its size: 320 KiB of gzip would be 320 MiB held
    # (a few MiB, GiBs). Kiln offers identity alone, and a server that compresses anyway fails the call.
    down_kib = peak_kib_without_answers(project, tmp_path)
    run, warning, _ = build_against_misbehaving(project, reference, tmp_path, "gzipped")
    assert "from ByteStream.Read" in warning, warning
    assert run.peak_kib < down_kib + 64 * 1024, f"{run.peak_kib} KiB at peak, {down_kib} without answers"
