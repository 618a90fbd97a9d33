"""Real cache servers on loopback for the remote cache's tests: nginx with WebDAV (Debian's
nginx-light) and redis-server, each in a fresh directory on a free port, stopped at the end.

nginx serves, under http://127.0.0.1:PORT:
  /cache/    WebDAV: GET, HEAD, PUT (creating directories), DELETE; the files are under dav_root
  /token/    the same root, only with "Authorization: Bearer sekrit" (else 401)
  /basic/    the same root, only with HTTP basic auth u:p (else 401)
  /broken/   500 for everything
nginx's workers run as nobody when the tests run as root, so nginx's directory is made outside
pytest's (which only its owner may enter) and writable for all; it is removed when nginx stops.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


def find_program(name, extra=()):
    found = shutil.which(name) or next((p for p in extra if os.access(p, os.X_OK)), None)
    if not found:
        raise RuntimeError(f"{name} not found: scripts/install-deps.sh installs it (Debian: nginx-light, redis-server)")
    return found


# One WebDAV location over the DAV root; `guard` refuses requests that lack the right Authorization.
DAV_LOCATION = """
    location /{name}/ {{
      {guard}
      alias {dav}/;
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw group:rw all:rw;
    }}"""

DAV_LOCATIONS = {
    "cache": "",
    "token": 'if ($http_authorization != "Bearer sekrit") { return 401; }',
    "basic": 'if ($http_authorization != "Basic dTpw") { return 401; }',   # u:p
}

NGINX_CONFIG = """
daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log {work}/access.log;
  client_body_temp_path {work}/body;
  proxy_temp_path {work}/proxy;
  fastcgi_temp_path {work}/fastcgi;
  uwsgi_temp_path {work}/uwsgi;
  scgi_temp_path {work}/scgi;
  client_max_body_size 0;
  server {{
    listen 127.0.0.1:{port};{locations}
    location /broken/ {{
      return 500;
    }}
  }}
}}
"""


class Nginx:
    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="kiln-nginx-")
        self.dav_root = os.path.join(self.work, "dav")
        os.makedirs(self.dav_root)
        for d in (self.work, self.dav_root):
            os.chmod(d, 0o777)
        self.port = free_port()
        config = os.path.join(self.work, "nginx.conf")
        with open(config, "w") as f:
            locations = "".join(DAV_LOCATION.format(name=name, guard=guard, dav=self.dav_root)
                                for name, guard in DAV_LOCATIONS.items())
            f.write(NGINX_CONFIG.format(work=self.work, port=self.port, locations=locations))
        nginx = find_program("nginx", ["/usr/sbin/nginx"])
        self.process = subprocess.Popen([nginx, "-c", config, "-e", os.path.join(self.work, "error.log")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.process, "nginx")

    def url(self, location="cache"):
        return f"http://127.0.0.1:{self.port}/{location}"

    def entries(self):
        """The files under the DAV root, relative to it."""
        found = []
        for directory, _, files in os.walk(self.dav_root):
            found += [os.path.relpath(os.path.join(directory, f), self.dav_root) for f in files]
        return sorted(found)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.work, ignore_errors=True)


class Redis:
    def __init__(self, work):
        self.work = os.path.abspath(work)
        os.makedirs(self.work, exist_ok=True)
        self.port = free_port()
        server = find_program("redis-server", ["/usr/bin/redis-server"])
        self.process = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.work],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for_port(self.port, self.process, "redis-server")

    def url(self, database=0):
        return f"redis://127.0.0.1:{self.port}/{database}"

    def command(self, *words):
        """One command through redis-cli's own connection; its output."""
        cli = find_program("redis-cli", ["/usr/bin/redis-cli"])
        return subprocess.run([cli, "-p", str(self.port), *words], check=True, capture_output=True, text=True).stdout

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class SilentServer:
    """Accepts connections and never answers: what a hung cache server looks like."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]

    def stop(self):
        self.socket.close()
