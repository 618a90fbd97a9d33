#!/usr/bin/env python3
"""Fidelity benchmark (issue 10): on public CUDA code bases Kiln's authors never wrote, does Kiln
build what nvcc builds?

For every translation unit of every code base in codebases.toml, alone:
  oracle   nvcc -cubin -arch=sm_90 with the code base's flags: the kernel symbols of that cubin. A unit
           nvcc refuses alone does not count (it is meant to be included by another, or needs more).
  scan     kiln scan --json with the same flags: the kernels and instantiations clang finds.
  build    kiln build of a one-source manifest for sm_90 with the same flags: the package's kernels.
Precision and recall of scan and build against the oracle, by kernel (demangled name, symbols.py),
the failure modes left with one example each, and the time of each step. The packages are kept for
the GPU check (scripts/gpu-check.sh loads every kernel of them).

  python3 bench/fidelity/run.py --fetch --corpora /tmp/corpora           clone the pinned commits
  python3 bench/fidelity/run.py --corpora /tmp/corpora [--work /tmp/fidelity] [-j 2] [--only ggml]
        [--limit N] [--kiln build/bin/kiln] [--cuda /usr/local/cuda] [--out bench/results/fidelity.md]

Standard library only (Python 3.11: tomllib). Nothing is written into the code bases or the
repository except --out.
"""
import argparse
import concurrent.futures
import fnmatch
import glob
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402
import symbols  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TIMEOUT = 900  # seconds for one step of one unit


def load_codebases():
    with open(HERE / "codebases.toml", "rb") as f:
        return tomllib.load(f)["codebase"]


def fetch(codebases, corpora):
    for cb in codebases:
        dest = corpora / cb["name"]
        if not dest.exists():
            subprocess.run(["git", "clone", "--quiet", cb["url"], str(dest)], check=True)
        subprocess.run(["git", "-C", str(dest), "checkout", "--quiet", cb["commit"]], check=True)
        print(f"{cb['name']}: {dest} at {cb['commit'][:12]}")


def units_of(cb, root):
    files = set()
    for pattern in cb["sources"]:
        files.update(glob.glob(str(root / pattern), recursive=True))
    files = sorted(Path(f) for f in files if not any(fnmatch.fnmatch(f, str(root / e)) for e in cb.get("exclude", [])))
    if "first_directories" in cb:
        directories = sorted({f.parent for f in files})[: cb["first_directories"]]
        files = [f for f in files if f.parent in directories]
    return files


def include_dirs(cb, root, unit):
    # Only those that exist: nvcc ignores a missing one, a Kiln manifest refuses it.
    dirs = [unit.parent if d == "{dir}" else root / d for d in cb.get("include_dirs", [])]
    return [d for d in dirs if d.is_dir()]


def run(argv, cwd, timeout=TIMEOUT):
    start = time.monotonic()
    try:
        # Compilers echo source lines, and sources are not all UTF-8.
        p = subprocess.run(argv, cwd=cwd, capture_output=True, encoding="utf-8", errors="replace", timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout} s", time.monotonic() - start


def first_error(text):
    for line in text.splitlines():
        if "error" in line and "errors detected" not in line:
            return line.strip()[:300]
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else ""


def oracle(cb, root, unit, work, args):
    flags = [f"-I{d}" for d in include_dirs(cb, root, unit)] + [f"-D{d}" for d in cb.get("defines", [])]
    cubin = work / "oracle.cubin"
    code, _, err, seconds = run([str(args.cuda / "bin/nvcc"), "-cubin", "-arch=sm_90", *flags, *cb.get("options", []),
                                 unit.name, "-o", str(cubin)], unit.parent)
    result = {"ok": code == 0, "seconds": seconds, "error": "" if code == 0 else first_error(err)}
    if code == 0:
        result["symbols"] = symbols.cubin_kernels(cubin.read_bytes())
    return result


def scan(cb, root, unit, args):
    flags = [f"-I{d}" for d in include_dirs(cb, root, unit)] + [f"-D{d}" for d in cb.get("defines", [])]
    flags += [f"--option={o}" for o in cb.get("options", [])]
    code, out, err, seconds = run([str(args.kiln), "scan", "--json", *flags, unit.name], unit.parent)
    result = {"ok": code == 0, "seconds": seconds, "error": "" if code == 0 else first_error(err)}
    if code == 0:
        found = json.loads(out)["files"][0]["result"]
        names = [k["qualified_name"] for k in found["kernels"] if not k["is_template"]]
        # As a demangler spells nvcc's symbol, where that differs (enumerators by value).
        names += [i.get("symbol_form") or i["name_expression"] for i in found["instantiations"]]
        result["names"] = sorted(set(names))
    return result


def toml_list(values):
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def build(cb, root, unit, work, args):
    includes = [os.path.relpath(d, unit.parent) for d in include_dirs(cb, root, unit)]
    manifest = work / "kiln.toml"
    manifest.write_text(f'name = "unit"\ntargets = ["sm_90"]\ninclude_dirs = {toml_list(includes)}\n'
                        f'defines = {toml_list(cb.get("defines", []))}\noptions = {toml_list(cb.get("options", []))}\n'
                        f'[[source]]\npath = {json.dumps(unit.name)}\n')
    package = work / "unit.kiln"
    code, _, err, seconds = run([str(args.kiln), "build", str(manifest), "--root", str(unit.parent), "-o", str(package),
                                 "-j", "1", "--scan-cache", str(work / "scan-cache"), "-v"], work)
    result = {"ok": code == 0, "seconds": seconds, "error": "" if code == 0 else first_error(err),
              "lost_discovery": "warning: the scan cannot read" in err,
              "scan_error": next((l.split("first error: ", 1)[1] for l in err.splitlines()
                                  if "warning: the scan cannot read" in l and "first error: " in l), ""),
              # -v shows each compile's tool, and a note where nvcc compiled what NVRTC rejected.
              "compiler": "nvcc" if "\n  nvcc:" in err else "nvrtc",
              "nvcc_fallback": "note: NVRTC cannot compile it" in err}
    if code == 0:
        code, out, _, _ = run([str(args.kiln), "inspect", "--json", str(package)], work)
        inspected = json.loads(out)
        result["symbols"] = sorted(k["lowered_name"] for k in inspected["kernels"])
        result["size"] = sum(i["size"] for u in inspected["units"] for i in u["images"])
    return result


def one_unit(cb, root, unit, args):
    work = args.work / cb["name"] / str(unit.relative_to(root)).replace("/", "__")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    record = {"codebase": cb["name"], "unit": str(unit.relative_to(root)), "oracle": oracle(cb, root, unit, work, args)}
    if record["oracle"]["ok"]:
        record["scan"] = scan(cb, root, unit, args)
        record["build"] = build(cb, root, unit, work, args)
        if record["build"]["ok"]:
            packages = args.work / "packages"
            packages.mkdir(exist_ok=True)
            shutil.copy(work / "unit.kiln", packages / (cb["name"] + "__" + work.name + ".kiln"))
    shutil.rmtree(work / "scan-cache", ignore_errors=True)
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, required=True, help="where the code bases are (one folder each)")
    parser.add_argument("--fetch", action="store_true", help="clone the pinned commits into --corpora and stop")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kiln-fidelity"))
    parser.add_argument("--kiln", type=Path, default=REPO / "build/bin/kiln")
    parser.add_argument("--cuda", type=Path, default=Path("/usr/local/cuda"))
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append", help="a code base to run (repeatable)")
    parser.add_argument("--limit", type=int, help="at most this many units per code base (for trying it out)")
    parser.add_argument("--out", type=Path, default=REPO / "bench/results/fidelity.md")
    parser.add_argument("--report-only", action="store_true",
                        help="write the report from --work's results.json again (after a change to the comparison)")
    args = parser.parse_args()
    args.kiln = args.kiln.resolve()
    codebases = [cb for cb in load_codebases() if not args.only or cb["name"] in args.only]
    if args.fetch:
        fetch(codebases, args.corpora)
        return
    pins = {cb["name"]: cb for cb in codebases}
    if args.report_only:
        records = json.loads((args.work / "results.json").read_text())
        args.out.write_text(report.markdown(records, pins, args))
        return
    args.work.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(args.work / "packages", ignore_errors=True)
    tasks = []
    for cb in codebases:
        root = args.corpora / cb["name"]
        units = units_of(cb, root)[: args.limit]
        print(f"{cb['name']}: {len(units)} units", file=sys.stderr)
        tasks += [(cb, root, u) for u in units]
    records = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(one_unit, cb, root, u, args): (cb, root, u) for cb, root, u in tasks}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            try:
                records.append(future.result())
            except Exception as e:  # a bug here must not lose the other units' results
                cb, root, u = futures[future]
                records.append({"codebase": cb["name"], "unit": str(u.relative_to(root)),
                                "oracle": {"ok": False, "seconds": 0, "error": ""}, "benchmark_error": repr(e)})
            r = records[-1]
            state = ("BENCHMARK ERROR " + r["benchmark_error"] if "benchmark_error" in r else "nvcc refuses"
                     if not r["oracle"]["ok"] else "built" if r["build"]["ok"] else "BUILD FAILED")
            print(f"[{done}/{len(tasks)}] {r['codebase']} {r['unit']}: {state}", file=sys.stderr)
    records.sort(key=lambda r: (r["codebase"], r["unit"]))
    (args.work / "results.json").write_text(json.dumps(records, indent=1))
    text = report.markdown(records, pins, args)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
