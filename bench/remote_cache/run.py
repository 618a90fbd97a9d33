#!/usr/bin/env python3
"""The remote cache against compiling (issue 34): real CUDA code built once cold, then from an empty
local cache against each warm remote backend, every server real and on loopback, side by side in
one run:

  cold          no remote cache, empty local cache: everything compiled
  warm local    the local cache full (the floor a remote hit cannot beat)
  <backend>     an empty local cache against the backend's server, which a cold build filled:
                http (nginx WebDAV), redis (redis-server), s3 (rclone serve s3, signed requests),
                reapi (BuildGrid: ActionCache + CAS)

Each warm build must compile nothing and write the same package as the cold one (checked, not
assumed). Wall time, median of --runs.

  python3 bench/remote_cache/run.py --kiln build/bin/kiln --corpora /tmp/corpora [--units 12]
        [--targets sm_80,sm_90,compute_90] [--runs 3] [--out bench/results/remote-cache.md]

--corpora as bench/fidelity/run.py --fetch makes it (HeCBench is used: its first --units CUDA
programs that Kiln builds alone); without it, examples/saxpy. The servers come from
tests/remote/servers.py (install them with scripts/install-deps.sh).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "remote"))
sys.path.insert(0, str(ROOT / "bench" / "fidelity"))
import servers  # noqa: E402
import run as fidelity  # noqa: E402


def clean_environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KILN_", "AWS_"))}
    env["HOME"] = tempfile.mkdtemp(prefix="kiln-bench-home-")   # no ~/.aws of the machine's
    return env


def build(kiln, project, out, cache, env, extra_env=None):
    """(seconds, the 'compile:' line of -v, remote line); exits on failure."""
    run_env = dict(env, **(extra_env or {}))
    start = time.perf_counter()
    p = subprocess.run([str(kiln), "build", "-v", "-o", str(out), "--cache-dir", str(cache)], cwd=project,
                       env=run_env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"kiln build failed in {project}:\n{p.stderr[-3000:]}")
    lines = p.stderr.splitlines()
    compile_line = next((l for l in lines if l.startswith("compile:")), "")
    remote_line = next((l for l in lines if l.startswith("remote cache:")), "")
    warnings = [l for l in lines if "warning" in l and "remote" in l]
    if warnings:
        sys.exit(f"remote cache warnings in a benchmark build:\n" + "\n".join(warnings))
    return seconds, compile_line, remote_line


def hecbench_project(kiln, corpora, count, targets, work, env):
    """A tree of the first `count` HeCBench CUDA programs that Kiln builds alone, with one manifest."""
    cb = next(c for c in fidelity.load_codebases() if c["name"] == "hecbench")
    root = corpora / "hecbench"
    chosen = []
    for unit in fidelity.units_of(cb, root):
        if len(chosen) == count:
            break
        probe = work / "probe"
        shutil.rmtree(probe, ignore_errors=True)
        probe.mkdir(parents=True)
        includes = [os.path.relpath(d, unit.parent) for d in fidelity.include_dirs(cb, root, unit)]
        (probe / "kiln.toml").write_text(
            f'name = "probe"\ntargets = ["sm_90"]\ninclude_dirs = {fidelity.toml_list(includes)}\n'
            f'options = {fidelity.toml_list(cb.get("options", []))}\n[[source]]\npath = {json.dumps(unit.name)}\n')
        p = subprocess.run([str(kiln), "build", str(probe / "kiln.toml"), "--root", str(unit.parent), "-o",
                            str(probe / "p.kiln"), "--cache-dir", str(probe / "cache"), "-q"],
                           env=env, capture_output=True, text=True)
        if p.returncode == 0:
            chosen.append(unit)
    project = work / "project"
    shutil.copytree(root / "src", project / "src", symlinks=True,
                    ignore=lambda d, names: [n for n in names if n == "data"])
    includes = sorted({os.path.relpath(d, root) for u in chosen for d in fidelity.include_dirs(cb, root, u)})
    sources = "".join(f'[[source]]\npath = {json.dumps(str(u.relative_to(root)))}\n' for u in chosen)
    (project / "kiln.toml").write_text(
        f'name = "hecbench"\ntargets = {fidelity.toml_list(targets)}\ninclude_dirs = {fidelity.toml_list(includes)}\n'
        f'options = {fidelity.toml_list(cb.get("options", []))}\n{sources}')
    return project, f"{len(chosen)} HeCBench programs ({', '.join(u.parent.name for u in chosen)})"


def saxpy_project(work):
    project = work / "project"
    shutil.copytree(ROOT / "examples" / "saxpy", project)
    return project, "examples/saxpy"


class Backends:
    """The servers, started once; each case gets its own place on its server."""

    def __init__(self, work):
        self.started = []
        self.work = work

    def start(self, server):
        self.started.append(server)
        return server

    def settings(self, name, case):
        if name == "http":
            nginx = getattr(self, "nginx", None) or self.start(servers.Nginx())
            self.nginx = nginx
            return {"KILN_REMOTE_CACHE": nginx.url() + f"/{case}"}
        if name == "redis":
            redis = getattr(self, "redis", None) or self.start(servers.Redis(self.work / "redis"))
            self.redis = redis
            return {"KILN_REMOTE_CACHE": redis.url(case)}
        if name == "s3":
            s3 = getattr(self, "s3", None) or self.start(servers.S3(self.work / "s3", keys=[("AKIDBENCH", "bench/secret")]))
            self.s3 = s3
            return {"KILN_REMOTE_CACHE": f"s3://kiln/bench{case}", "AWS_ENDPOINT_URL_S3": s3.endpoint(),
                    "AWS_ACCESS_KEY_ID": "AKIDBENCH", "AWS_SECRET_ACCESS_KEY": "bench/secret"}
        if name == "reapi":
            reapi = getattr(self, "reapi", None) or self.start(servers.Reapi(self.work / "reapi", count=2, secured=0))
            self.reapi = reapi
            return {"KILN_REMOTE_CACHE": reapi.url(reapi.fresh_instance())}
        raise ValueError(name)

    def stop(self):
        for server in self.started:
            server.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kiln", type=Path, default=ROOT / "build" / "bin" / "kiln")
    parser.add_argument("--corpora", type=Path)
    parser.add_argument("--units", type=int, default=12)
    parser.add_argument("--targets", default="sm_80,sm_90,compute_90")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backends", default="http,redis,s3,reapi")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    kiln = args.kiln.resolve()
    env = clean_environment()
    work = Path(tempfile.mkdtemp(prefix="kiln-remote-bench-"))
    targets = args.targets.split(",")
    if args.corpora:
        project, what = hecbench_project(kiln, args.corpora.resolve(), args.units, targets, work, env)
    else:
        project, what = saxpy_project(work)

    rows = []
    cold_times, reference = [], None
    for r in range(args.runs):
        seconds, compiled, _ = build(kiln, project, work / "cold.kiln", work / f"cold-cache{r}", env)
        cold_times.append(seconds)
        reference = (work / "cold.kiln").read_bytes()
    rows.append(("cold (no remote, empty local cache)", statistics.median(cold_times), compiled, "", True))
    local_times = []
    for r in range(args.runs):
        seconds, line, _ = build(kiln, project, work / "local.kiln", work / "cold-cache0", env)
        local_times.append(seconds)
    rows.append(("warm local cache", statistics.median(local_times), line, "",
                 (work / "local.kiln").read_bytes() == reference))

    backends = Backends(work)
    try:
        for name in args.backends.split(","):
            fill_env = backends.settings(name, 1)
            fill, fill_compiled, fill_remote = build(kiln, project, work / f"{name}-fill.kiln", work / f"{name}-fill-cache", env, fill_env)
            rows.append((f"{name}: cold, filling the server", fill, fill_compiled, fill_remote,
                         (work / f"{name}-fill.kiln").read_bytes() == reference))
            times, same = [], True
            for r in range(args.runs):
                seconds, line, remote = build(kiln, project, work / f"{name}.kiln", work / f"{name}-cache{r}", env, fill_env)
                times.append(seconds)
                same = same and (work / f"{name}.kiln").read_bytes() == reference
            rows.append((f"{name}: warm server, empty local cache", statistics.median(times), line, remote, same))
    finally:
        backends.stop()
        shutil.rmtree(work, ignore_errors=True)

    cold = rows[0][1]
    lines = ["# Remote cache: warm servers against a cold build", "",
             f"`python3 bench/remote_cache/run.py{f' --corpora … --units {args.units}' if args.corpora else ''} "
             f"--targets {args.targets} --runs {args.runs}` on {os.cpu_count()} cores: {what}, targets "
             f"{', '.join(targets)}. Servers on loopback; median of {args.runs} runs (the fill, once). "
             "Absolute times hold only on this machine.", "",
             "| case | seconds | cold / case | compiles | remote | package = cold's |", "|---|---:|---:|---|---|---|"]
    for case, seconds, compiled, remote, same in rows:
        lines.append(f"| {case} | {seconds:.2f} | {cold / seconds:.1f}x | {compiled.removeprefix('compile: ')} | "
                     f"{remote.removeprefix('remote cache: ')} | {'yes' if same else '**no**'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    if not all(row[4] for row in rows):
        sys.exit("a package differs from the cold build's")


if __name__ == "__main__":
    main()
