"""The remote cache tests' project, the package it builds without a remote cache, and the servers."""

import pytest

import servers
from kiln_builds import SOURCES, build


@pytest.fixture(scope="session")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    for name, text in SOURCES.items():
        (root / name).write_text(text)
    return root


@pytest.fixture(scope="session")
def reference(project, tmp_path_factory):
    """The package a build with no remote cache writes."""
    out = tmp_path_factory.mktemp("reference") / "remote.kiln"
    run = build(project, tmp_path_factory.mktemp("cache"), out, remote=None)
    assert run.returncode == 0, run.stderr
    return out.read_bytes()


@pytest.fixture
def nginx():
    server = servers.Nginx()
    yield server
    server.stop()


@pytest.fixture
def redis(tmp_path):
    server = servers.Redis(tmp_path / "redis")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def reapi(tmp_path_factory):
    """One BuildGrid for the session (it takes seconds to start, and more per instance): each test that
    writes takes a fresh instance of it, and there are as many as test_reapi_cache.py's tests and
    test_signed_entries.py's take."""
    server = servers.Reapi(tmp_path_factory.mktemp("reapi"), count=7, secured=1)
    yield server
    server.stop()


# The access key the signed S3 server takes (rclone checks the signature with the secret).
S3_KEY_ID, S3_SECRET = "AKIDKILNTEST", "kiln/test+secret"


@pytest.fixture(scope="session")
def s3(tmp_path_factory):
    """One S3 server for the session (rclone takes a second to start): it takes only requests signed
    with S3_KEY_ID and S3_SECRET, bucket `kiln`; each test writes under a prefix of its own."""
    server = servers.S3(tmp_path_factory.mktemp("s3"), keys=[(S3_KEY_ID, S3_SECRET)])
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3_anonymous(s3, tmp_path_factory):
    """The signed server's buckets served to anyone: a bucket that everyone may read."""
    server = servers.S3(tmp_path_factory.mktemp("s3-anonymous"), root=s3.root)
    yield server
    server.stop()
