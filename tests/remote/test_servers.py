"""The servers' own helpers (servers.py), which every other test here relies on."""

import os
import signal
import socket
import subprocess
import sys

import pytest

import servers

# A server that listens on the port it is given, or exits at once when it cannot bind it.
LISTEN = ("import socket, sys, time\n"
          "s = socket.socket(); s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(1); time.sleep(60)\n")


@pytest.mark.parametrize("listening", [False, True], ids=["bound", "listening"])
def test_a_server_whose_port_was_taken_first_is_launched_on_another(monkeypatch, listening):
    # Another process takes the port found free first: bound only, the server cannot bind it and
    # exits; listening too, connections succeed, and the listener must not be taken for the server.
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    if listening:
        taken.listen(1)
    ports = [taken.getsockname()[1]]
    found_free = servers.free_port
    monkeypatch.setattr(servers, "free_port", lambda: ports.pop(0) if ports else found_free())
    launched = []

    def start(port):
        launched.append(port)
        return subprocess.Popen([sys.executable, "-c", LISTEN, str(port)], stderr=subprocess.DEVNULL)
    try:
        port, process = servers.launch_on_a_free_port(start, "the test's server")
        try:
            assert launched[0] == taken.getsockname()[1] and port == launched[1] != launched[0]
            assert servers.listens_on(process, port) is True
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                pass
        finally:
            servers.stop_process(process)
    finally:
        taken.close()


def test_a_server_that_never_listens_is_given_up_after_three_launches(monkeypatch):
    launched = []

    def start(port):
        launched.append(port)
        return subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(servers.ExitedBeforeListening, match="exited with 3 before listening"):
        servers.launch_on_a_free_port(start, "the test's server")
    assert len(launched) == 3


def test_a_refusing_port_refuses_until_it_is_closed():
    with servers.RefusingPort() as refusing:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", refusing.port), timeout=5)


def test_a_listener_is_the_servers_only_where_its_process_or_a_child_holds_the_socket():
    port = servers.free_port()
    # The server's process is a shell whose child listens, as a server's workers may.
    server = subprocess.Popen(["sh", "-c", f'"{sys.executable}" -c "$0" {port} & wait', LISTEN],
                              start_new_session=True)
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        servers.wait_for_port(port, server, "the test's server")
        assert servers.listens_on(server, port) is True
        assert servers.listens_on(bystander, port) is False
        with socket.socket() as own:   # this process's listener is neither's
            own.bind(("127.0.0.1", 0))
            own.listen(1)
            assert servers.listens_on(server, own.getsockname()[1]) is False
    finally:
        os.killpg(server.pid, signal.SIGKILL)   # the shell and its listening child
        server.wait()
        servers.stop_process(bystander)
