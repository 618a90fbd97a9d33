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
