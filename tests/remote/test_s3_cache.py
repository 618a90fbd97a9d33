"""The S3 backend (KILN_REMOTE_CACHE=s3://bucket/prefix) against rclone's S3 server on loopback
(servers.S3), which checks SigV4 signatures as S3 does, and against a small server in this process
that records what each request carried (servers.MisbehavingHttp). One signed server and one that
serves the same buckets to anyone run for the whole session; each test has a prefix of its own.
Every build gets an empty HOME unless the test gives one, so the machine's ~/.aws is never read, and
kiln_builds drops the runner's own AWS_* variables.

    KILN=<kiln executable> python -m pytest tests/remote/test_s3_cache.py
"""

import hashlib
import re
import subprocess

import pytest

import servers
from conftest import S3_KEY_ID, S3_SECRET
from kiln_builds import COMPILES, ENTRIES, KILN, LOOKUPS, build, environment, fresh_build, remote_warnings
from test_remote_cache import check_filled_then_served

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def home(tmp_path, credentials=None, config=None):
    """A HOME of the test's own, with ~/.aws/credentials and ~/.aws/config when given."""
    directory = tmp_path / "home"
    (directory / ".aws").mkdir(parents=True, exist_ok=True)
    if credentials is not None:
        (directory / ".aws" / "credentials").write_text(credentials)
    if config is not None:
        (directory / ".aws" / "config").write_text(config)
    return str(directory)


def signed(server, tmp_path, **variables):
    """The variables of a build that signs with the server's key (`variables` change them)."""
    return {**dict(AWS_ENDPOINT_URL_S3=server.endpoint(), AWS_ACCESS_KEY_ID=S3_KEY_ID, AWS_SECRET_ACCESS_KEY=S3_SECRET,
                   HOME=home(tmp_path)), **variables}


def check_entries_layout(objects):
    assert len(objects) == ENTRIES
    for entry in objects:   # <k0k1>/<key>: the HTTP backend's layout
        directory, key = entry.split("/")
        assert len(key) == 32 and key[:2] == directory


def test_s3_second_build_is_all_remote_hits(project, reference, s3, tmp_path):
    prefix = f"ci/{tmp_path.name}"
    check_filled_then_served(project, tmp_path, reference, f"s3://kiln/{prefix}", **signed(s3, tmp_path))
    check_entries_layout(s3.objects("kiln", prefix))


def test_s3_wrong_secret_warns_once_and_builds(project, reference, s3, tmp_path):
    url = f"s3://kiln/{tmp_path.name}"
    run, run_stats, package = fresh_build(project, tmp_path, "wrong", url,
                                          **signed(s3, tmp_path, AWS_SECRET_ACCESS_KEY="not-the-secret"))
    assert run.returncode == 0, run.stderr
    assert package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1, run.stderr
    assert "S3 403 SignatureDoesNotMatch" in warnings[0] and "AWS_SECRET_ACCESS_KEY" in warnings[0], warnings[0]
    assert run_stats["remote"]["hits"] == 0 and run_stats["remote"]["writes"] == 0
    assert run_stats["compile"]["misses"] == COMPILES
    assert "not-the-secret" not in run.stderr
    assert s3.objects("kiln", tmp_path.name) == []


def test_s3_anonymous_read_for_forks(project, reference, s3, s3_anonymous, tmp_path):
    """CI signs and writes; a fork's build has no credentials: it reads the same bucket unsigned (a
    bucket everyone may read), hits, and never writes."""
    url = f"s3://kiln/{tmp_path.name}"
    nobody = dict(AWS_ENDPOINT_URL_S3=s3_anonymous.endpoint(), HOME=home(tmp_path))
    empty, empty_stats, empty_package = fresh_build(project, tmp_path, "fork-empty", url, **nobody)
    assert empty.returncode == 0 and empty_package == reference, empty.stderr
    assert empty_stats["remote"]["misses"] == LOOKUPS and empty_stats["remote"]["writes"] == 0
    assert "read only: no AWS credentials" in empty.stderr
    assert s3.objects("kiln", tmp_path.name) == []
    # CI systems hand forks empty secrets: an empty variable is no variable.
    blank, blank_stats, _ = fresh_build(project, tmp_path, "fork-blank", url, AWS_ACCESS_KEY_ID="",
                                        AWS_SECRET_ACCESS_KEY="", AWS_SESSION_TOKEN="", **nobody)
    assert blank.returncode == 0 and remote_warnings(blank) == [], blank.stderr
    assert blank_stats["remote"]["misses"] == LOOKUPS and "read only: no AWS credentials" in blank.stderr
    stats = subprocess.run([KILN, "cache", "stats"], env=environment(tmp_path / "cache-fork-empty", url, **nobody),
                           capture_output=True, text=True)
    assert f"{url} (read: no AWS credentials" in stats.stdout, stats.stdout + stats.stderr

    ci, _, _ = fresh_build(project, tmp_path, "ci", url, **signed(s3, tmp_path))
    assert ci.returncode == 0 and remote_warnings(ci) == [], ci.stderr
    written = s3.objects("kiln", tmp_path.name)
    check_entries_layout(written)
    fork, fork_stats, fork_package = fresh_build(project, tmp_path, "fork", url, **nobody)
    assert fork.returncode == 0 and fork_package == reference, fork.stderr
    assert remote_warnings(fork) == [], fork.stderr
    assert fork_stats["remote"]["hits"] == ENTRIES and fork_stats["remote"]["writes"] == 0
    assert fork_stats["compile"]["misses"] == 0
    assert s3.objects("kiln", tmp_path.name) == written

    # The signed server refuses unsigned requests: the warning says there were no credentials.
    refused, _, refused_package = fresh_build(project, tmp_path, "unsigned", url,
                                              AWS_ENDPOINT_URL_S3=s3.endpoint(), HOME=home(tmp_path))
    assert refused.returncode == 0 and refused_package == reference
    assert len(remote_warnings(refused)) == 1 and "unsigned: no AWS credentials" in remote_warnings(refused)[0]


LONG_TOKEN = "IQoJb3JpZ2luX2VjE" + "A" * 900 + "Zz=="   # STS tokens run past inih's 199-character lines


@pytest.mark.parametrize("where", ["named profile", "default profile in HOME"])
def test_s3_credentials_from_a_profile(project, reference, s3, tmp_path, where):
    keys = f"aws_access_key_id = {S3_KEY_ID}\naws_secret_access_key = {S3_SECRET}\naws_session_token = {LONG_TOKEN}\n"
    url = f"s3://kiln/{tmp_path.name}"
    if where == "named profile":
        credentials = tmp_path / "ci-credentials"
        credentials.write_text("[default]\naws_access_key_id = NOTTHIS\naws_secret_access_key = wrong\n\n[ci]\n" + keys)
        variables = dict(AWS_SHARED_CREDENTIALS_FILE=str(credentials), AWS_PROFILE="ci", HOME=home(tmp_path))
    else:
        variables = dict(HOME=home(tmp_path, credentials="# kiln's CI\n[default]\n" + keys,
                                   config="[default]\nregion = eu-west-3\n"))
    run, run_stats, package = fresh_build(project, tmp_path, "profile", url, AWS_ENDPOINT_URL_S3=s3.endpoint(),
                                          **variables)
    assert run.returncode == 0 and remote_warnings(run) == [], run.stderr
    assert run_stats["remote"]["writes"] == ENTRIES and package == reference
    check_entries_layout(s3.objects("kiln", tmp_path.name))


def test_s3_a_bucket_that_is_not_there_is_said(project, reference, s3, tmp_path):
    run, run_stats, package = fresh_build(project, tmp_path, "nobucket", "s3://kiln-missing/x", **signed(s3, tmp_path))
    assert run.returncode == 0 and package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and "S3 404 NoSuchBucket" in warnings[0], run.stderr
    assert "no bucket kiln-missing there: check KILN_REMOTE_CACHE and AWS_ENDPOINT_URL_S3" in warnings[0]
    # Not a miss: every get and put of the build erred.
    assert run_stats["remote"]["misses"] == 0 and run_stats["remote"]["errors"] == LOOKUPS + 2 * COMPILES


def test_s3_a_wrong_profile_key_names_the_profile(project, reference, s3, tmp_path):
    credentials = tmp_path / "credentials"
    credentials.write_text(f"[ci]\naws_access_key_id = {S3_KEY_ID}\naws_secret_access_key = hunter2\n")
    run, _, package = fresh_build(project, tmp_path, "wrong", f"s3://kiln/{tmp_path.name}",
                                  AWS_ENDPOINT_URL_S3=s3.endpoint(), AWS_SHARED_CREDENTIALS_FILE=str(credentials),
                                  AWS_PROFILE="ci", HOME=home(tmp_path))
    assert run.returncode == 0 and package == reference
    warnings = remote_warnings(run)
    assert len(warnings) == 1 and f"profile ci of {credentials}" in warnings[0], run.stderr
    assert "hunter2" not in run.stderr


def test_s3_session_token_is_signed_and_reaches_the_server(project, reference, s3, tmp_path):
    # rclone checks the signature, which covers x-amz-security-token: a build with a token still signs right.
    run, run_stats, _ = fresh_build(project, tmp_path, "token", f"s3://kiln/{tmp_path.name}",
                                    **signed(s3, tmp_path, AWS_SESSION_TOKEN=LONG_TOKEN))
    assert run.returncode == 0 and remote_warnings(run) == [], run.stderr
    assert run_stats["remote"]["writes"] == ENTRIES
    # What a request carries, as a server in this process sees it.
    recorder = servers.MisbehavingHttp("empty")
    try:
        run, _, package = fresh_build(project, tmp_path, "recorded", "s3://kiln/recorded",
                                      **signed(recorder, tmp_path, AWS_SESSION_TOKEN="tok3n", AWS_REGION="eu-west-3"))
    finally:
        recorder.stop()
    assert run.returncode == 0 and package == reference and remote_warnings(run) == [], run.stderr
    methods = sorted({method for method, _, _, _ in recorder.seen})
    assert methods == ["GET", "HEAD", "PUT"], methods
    for method, path, headers, body_sha256 in recorder.seen:
        assert re.fullmatch(r"/kiln/recorded/([0-9a-f]{2})/\1[0-9a-f]{30}", path), path
        assert headers["x-amz-security-token"] == "tok3n"
        # The payload's SHA-256 on PUT, the empty body's on GET and HEAD: what S3 checks.
        assert headers["x-amz-content-sha256"] == (body_sha256 if method == "PUT" else EMPTY_SHA256), method
        authorization = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=[0-9a-f]{64}",
                                     headers["authorization"])
        assert authorization, headers["authorization"]
        key, _, region, service, _ = authorization.group(1).split("/")
        assert (key, region, service) == (S3_KEY_ID, "eu-west-3", "s3")
        assert {"host", "x-amz-content-sha256", "x-amz-date", "x-amz-security-token"} <= \
            set(authorization.group(2).split(";"))


def test_s3_endpoint_variables_in_order(project, reference, s3, tmp_path):
    with servers.RefusingPort() as refusing:
        check_endpoint_variables_in_order(project, reference, s3, tmp_path, f"http://127.0.0.1:{refusing.port}")


def check_endpoint_variables_in_order(project, reference, s3, tmp_path, nowhere):
    keys = dict(AWS_ACCESS_KEY_ID=S3_KEY_ID, AWS_SECRET_ACCESS_KEY=S3_SECRET, HOME=home(tmp_path))
    cases = {
        "s3-first": (dict(AWS_ENDPOINT_URL_S3=s3.endpoint(), AWS_ENDPOINT_URL=nowhere), True),
        "general": (dict(AWS_ENDPOINT_URL=s3.endpoint()), True),
        "s3-wins": (dict(AWS_ENDPOINT_URL_S3=nowhere, AWS_ENDPOINT_URL=s3.endpoint()), False),
    }
    for name, (endpoints, reaches) in cases.items():
        prefix = f"{tmp_path.name}-{name}"
        run, _, package = fresh_build(project, tmp_path, name, f"s3://kiln/{prefix}", **endpoints, **keys)
        assert run.returncode == 0 and package == reference, run.stderr
        if reaches:
            assert remote_warnings(run) == [], run.stderr
            assert len(s3.objects("kiln", prefix)) == ENTRIES, name
        else:
            warnings = remote_warnings(run)
            assert len(warnings) == 1 and nowhere in warnings[0] and "building without it" in warnings[0], run.stderr
            assert s3.objects("kiln", prefix) == []


@pytest.mark.parametrize("variables,message", [
    (dict(AWS_PROFILE="nope"), "AWS_PROFILE=nope: no such profile in"),
    (dict(AWS_ACCESS_KEY_ID=S3_KEY_ID), "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"),
    (dict(AWS_SECRET_ACCESS_KEY=S3_SECRET), "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not"),
    (dict(AWS_ENDPOINT_URL_S3="ftp://127.0.0.1:21"),
     "AWS_ENDPOINT_URL_S3=ftp://127.0.0.1:21: not an http:// or https:// URL"),
    (dict(AWS_REGION="EU"), "AWS_REGION=EU: not a region name"),
    (dict(AWS_SHARED_CREDENTIALS_FILE="/nonexistent/credentials"),
     "AWS_SHARED_CREDENTIALS_FILE=/nonexistent/credentials: no such file"),
    (dict(KILN_REMOTE_CACHE="s3://Kiln_Cache/x"), "'Kiln_Cache' is not an S3 bucket name"),
    (dict(KILN_REMOTE_CACHE="s3://AKID:" + S3_SECRET.replace("/", "%2F") + "@kiln/x"), "takes no user or password"),
])
def test_s3_settings_a_user_must_fix_stop_the_build(project, tmp_path, variables, message):
    variables = dict(variables)
    url = variables.pop("KILN_REMOTE_CACHE", "s3://kiln/x")
    run = build(project, tmp_path / "cache", tmp_path / "bad.kiln", url, HOME=home(tmp_path), **variables)
    assert run.returncode == 2, run.stderr
    assert message in run.stderr
    assert S3_SECRET not in run.stderr and S3_SECRET.replace("/", "%2F") not in run.stderr
    assert not (tmp_path / "bad.kiln").exists()
