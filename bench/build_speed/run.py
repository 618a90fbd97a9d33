#!/usr/bin/env python3
"""Build speed against nvcc (issue 31): on the fidelity code bases (bench/fidelity/codebases.toml),
each translation unit alone, cold caches, side by side in one run:

  one target    nvcc -cubin -arch=sm_90            against  kiln build (targets sm_90)
  five targets  nvcc -fatbin, five -gencode         against  kiln build (sm_80, sm_86, sm_89, sm_90,
                (and the same with --threads = cores)        compute_90)

Wall and CPU time (the process and its children), three runs with the order alternating, the median
of each unit's runs; sums and medians over the units; the scan's share of Kiln's wall time (build
--json). Then one tree of units built whole, copied to another path (another depth) and built again
with the same cache (cold / warm), and a header changed and restored (does the restored content hit?).

  python3 bench/build_speed/run.py --corpora /tmp/corpora [--limit 8] [--runs 3] [--kiln build/bin/kiln]
        [--baseline OTHER_KILN] [--out bench/results/build-speed.md]

--corpora as bench/fidelity/run.py --fetch makes it. --baseline adds the same figures for another
kiln (before/after). Standard library only.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "fidelity"))
import run as fidelity  # noqa: E402  (codebases, units, include directories)

FIVE = ["sm_80", "sm_86", "sm_89", "sm_90", "compute_90"]
CORES = os.cpu_count() or 1


def timed(argv, cwd):
    """(ok, wall seconds, CPU seconds of the children, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, encoding="utf-8", errors="replace", timeout=900)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode == 0, wall, cpu, p.stdout


def flags(cb, root, unit):
    return ([f"-I{d}" for d in fidelity.include_dirs(cb, root, unit)] + [f"-D{d}" for d in cb.get("defines", [])] +
            cb.get("options", []))


def nvcc(cb, root, unit, work, targets, threads):
    out = work / "out.bin"
    if len(targets) == 1:
        argv = ["-cubin", f"-arch={targets[0]}"]
    else:
        argv = ["-fatbin"] + [a for t in targets for a in ("-gencode", f"arch=compute_{t.split('_')[1]},code={t}")]
        if threads > 1:
            argv += ["--threads", str(threads)]
    ok, wall, cpu, _ = timed([str(fidelity_args.cuda / "bin/nvcc"), *argv, *flags(cb, root, unit), unit.name, "-o", str(out)],
                             unit.parent)
    return {"ok": ok, "wall": wall, "cpu": cpu}


def kiln(kiln_exe, cb, root, unit, work, targets):
    includes = [os.path.relpath(d, unit.parent) for d in fidelity.include_dirs(cb, root, unit)]
    manifest = work / "kiln.toml"
    manifest.write_text(f'name = "unit"\ntargets = {fidelity.toml_list(targets)}\ninclude_dirs = {fidelity.toml_list(includes)}\n'
                        f'defines = {fidelity.toml_list(cb.get("defines", []))}\n'
                        f'options = {fidelity.toml_list(cb.get("options", []))}\n'
                        f'[[source]]\npath = {json.dumps(unit.name)}\n')
    cache = work / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    ok, wall, cpu, out = timed([str(kiln_exe), "build", str(manifest), "--root", str(unit.parent), "-o",
                                str(work / "unit.kiln"), "--cache-dir", str(cache), "--json", "-q"], work)
    scan = 0.0
    if ok:
        scan = json.loads(out).get("seconds", {}).get("scan", 0.0)
    shutil.rmtree(cache, ignore_errors=True)
    return {"ok": ok, "wall": wall, "cpu": cpu, "scan": scan}


def measure_unit(cb, root, unit, args):
    work = Path(tempfile.mkdtemp(prefix="kiln-speed-"))
    steps = {
        "nvcc1": lambda: nvcc(cb, root, unit, work, ["sm_90"], 1),
        "nvcc5": lambda: nvcc(cb, root, unit, work, FIVE, 1),
        "nvcc5t": lambda: nvcc(cb, root, unit, work, FIVE, CORES),
        "kiln1": lambda: kiln(args.kiln, cb, root, unit, work, ["sm_90"]),
        "kiln5": lambda: kiln(args.kiln, cb, root, unit, work, FIVE),
    }
    if args.baseline:
        steps["base1"] = lambda: kiln(args.baseline, cb, root, unit, work, ["sm_90"])
        steps["base5"] = lambda: kiln(args.baseline, cb, root, unit, work, FIVE)
    runs = {name: [] for name in steps}
    order = list(steps)
    for r in range(args.runs):
        for name in (order if r % 2 == 0 else list(reversed(order))):
            runs[name].append(steps[name]())
    shutil.rmtree(work, ignore_errors=True)
    record = {"codebase": cb["name"], "unit": str(unit.relative_to(root))}
    for name, results in runs.items():
        if not all(x["ok"] for x in results):
            record[name] = None
            continue
        record[name] = {key: statistics.median(x[key] for x in results) for key in results[0] if key != "ok"}
    return record


def tree_copy(args, units):
    """Units built whole at one path, then copied to another path (one level deeper) and built with the
    same cache; then one header of the copy changed, built, restored, built."""
    base = Path(tempfile.mkdtemp(prefix="kiln-tree-"))
    first, second = base / "a" / "tree", base / "b" / "deeper" / "tree"
    cb, root, chosen = units
    shutil.copytree(root, first, symlinks=True)
    includes = sorted({os.path.relpath(d, root) for u in chosen for d in fidelity.include_dirs(cb, root, u)})
    sources = "".join(f'[[source]]\npath = {json.dumps(str(u.relative_to(root)))}\n' for u in chosen)
    (first / "kiln.toml").write_text(f'name = "tree"\ntargets = ["sm_90"]\ninclude_dirs = {fidelity.toml_list(includes)}\n'
                                     f'options = {fidelity.toml_list(cb.get("options", []))}\n{sources}')
    shutil.copytree(first, second, symlinks=True)
    cache = base / "cache"
    build = lambda tree: timed([str(args.kiln), "build", "-v", "-o", str(tree / "tree.kiln"), "--cache-dir", str(cache)], tree)
    ok_cold, cold, _, _ = build(first)
    p = subprocess.run([str(args.kiln), "build", "-v", "-o", str(second / "tree.kiln"), "--cache-dir", str(cache)],
                       cwd=second, capture_output=True, text=True)
    start = time.monotonic()
    p = subprocess.run([str(args.kiln), "build", "-v", "-o", str(second / "tree2.kiln"), "--cache-dir", str(cache)],
                       cwd=second, capture_output=True, text=True)
    warm = time.monotonic() - start
    compile_line = next((l for l in p.stderr.splitlines() if l.startswith("compile:")), "")
    identical = (first / "tree.kiln").read_bytes() == (second / "tree.kiln").read_bytes()
    # A header of the copy's first unit: changed, built, restored, built.
    folder = second / chosen[0].parent.relative_to(root)
    header = next(iter(sorted([*folder.glob("*.h"), *folder.glob("*.cuh"), *folder.glob("*.hpp")])), None)
    restored = ""
    if header is not None:
        text = header.read_bytes()
        header.write_bytes(text + b"\n// changed\n")
        subprocess.run([str(args.kiln), "build", "-o", str(second / "tree3.kiln"), "--cache-dir", str(cache)], cwd=second,
                       capture_output=True)
        header.write_bytes(text)
        q = subprocess.run([str(args.kiln), "build", "-v", "-o", str(second / "tree4.kiln"), "--cache-dir", str(cache)],
                           cwd=second, capture_output=True, text=True)
        restored = f"{header.relative_to(second)}: " + next((l for l in q.stderr.splitlines() if l.startswith("compile:")), "")
    shutil.rmtree(base, ignore_errors=True)
    return {"units": len(chosen), "cold": cold, "warm_other_path": warm, "ok": ok_cold and p.returncode == 0,
            "warm_compile_line": compile_line, "identical_packages": identical, "restored_header": restored}


def table(records, key_a, key_b, what):
    pairs = [(r[key_a], r[key_b]) for r in records if r.get(key_a) and r.get(key_b)]
    if not pairs:
        return f"| {what} | – | – | – | – | – |"
    wall_a = sum(a["wall"] for a, _ in pairs)
    wall_b = sum(b["wall"] for _, b in pairs)
    cpu_a = sum(a["cpu"] for a, _ in pairs)
    cpu_b = sum(b["cpu"] for _, b in pairs)
    median_ratio = statistics.median(b["wall"] / a["wall"] for a, b in pairs)
    return (f"| {what} | {len(pairs)} | {wall_a:.1f} s / {wall_b:.1f} s | **{wall_b / wall_a:.2f}** | "
            f"{median_ratio:.2f} | {cpu_a:.1f} s / {cpu_b:.1f} s ({cpu_b / cpu_a:.2f}) |")


def report(records, tree, args):
    lines = ["# Build speed: Kiln against nvcc", "",
             f"`python3 bench/build_speed/run.py` on {CORES} cores; each unit alone, cold caches, {args.runs} runs "
             "with the order alternating, the median of each unit's runs. Ratios are Kiln's time over the "
             "compiler's (below 1: Kiln is faster). Absolute times hold only on this machine.", "",
             "| comparison | units | wall (compiler / Kiln) | wall ratio (sums) | median of unit ratios | CPU (compiler / Kiln) |",
             "|---|---:|---:|---:|---:|---:|",
             table(records, "nvcc1", "kiln1", "one target: `nvcc -cubin` / kiln"),
             table(records, "nvcc5", "kiln5", "five targets: `nvcc -fatbin` five `-gencode` / kiln"),
             table(records, "nvcc5t", "kiln5", f"five targets: the same with `--threads {CORES}` / kiln")]
    if args.baseline:
        lines += [table(records, "base1", "kiln1", "one target: Kiln before / after"),
                  table(records, "base5", "kiln5", "five targets: Kiln before / after"),
                  table(records, "nvcc1", "base1", "one target, before: `nvcc -cubin` / kiln"),
                  table(records, "nvcc5", "base5", "five targets, before: `nvcc -fatbin` / kiln")]
    scans = [(r["kiln1"]["scan"], r["kiln1"]["wall"]) for r in records if r.get("kiln1")]
    if scans:
        lines += ["", f"The scan's share of Kiln's one-target wall time: {sum(s for s, _ in scans) / sum(w for _, w in scans):.1%} "
                  f"(sum of scan phases {sum(s for s, _ in scans):.2f} s)."]
    by_cb = {}
    for r in records:
        by_cb.setdefault(r["codebase"], []).append(r)
    lines += ["", "| code base | units | one target (sums) | five targets (sums) | five, against `--threads` |", "|---|---:|---:|---:|---:|"]
    for name, rs in by_cb.items():
        def ratio(a, b):
            p = [(r[a]["wall"], r[b]["wall"]) for r in rs if r.get(a) and r.get(b)]
            return f"{sum(y for _, y in p) / sum(x for x, _ in p):.2f}" if p else "–"
        lines.append(f"| {name} | {len(rs)} | {ratio('nvcc1', 'kiln1')} | {ratio('nvcc5', 'kiln5')} | {ratio('nvcc5t', 'kiln5')} |")
    if tree:
        lines += ["", "## Another path, the same cache", "",
                  f"{tree['units']} units built whole at one path ({tree['cold']:.1f} s cold), copied one level deeper "
                  f"and built again with the same cache: {tree['warm_other_path']:.2f} s "
                  f"(**{tree['cold'] / max(tree['warm_other_path'], 1e-9):.0f}x** faster; `{tree['warm_compile_line']}`); "
                  f"packages byte-identical: {tree['identical_packages']}. A header changed, built, restored and built: "
                  f"`{tree['restored_header']}`."]
    lines += ["", "Units that failed in any run on either side are left out.", ""]
    return "\n".join(lines)


def main():
    global fidelity_args
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, required=True)
    parser.add_argument("--kiln", type=Path, default=fidelity.REPO / "build/bin/kiln")
    parser.add_argument("--baseline", type=Path, help="another kiln to measure beside it")
    parser.add_argument("--cuda", type=Path, default=Path("/usr/local/cuda"))
    parser.add_argument("--limit", type=int, default=8, help="units per code base (those nvcc compiles alone)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", action="append")
    parser.add_argument("--tree", default="ggml", help="the code base whose units are built whole, copied and built again")
    parser.add_argument("--out", type=Path, default=fidelity.REPO / "bench/results/build-speed.md")
    args = parser.parse_args()
    args.kiln = args.kiln.resolve()
    fidelity_args = args
    records, tree_units = [], None
    for cb in fidelity.load_codebases():
        if args.only and cb["name"] not in args.only:
            continue
        root = args.corpora / cb["name"]
        chosen = []
        for unit in fidelity.units_of(cb, root):
            if len(chosen) == args.limit:
                break
            with tempfile.TemporaryDirectory() as work:   # units nvcc compiles alone, as the fidelity benchmark counts them
                if nvcc(cb, root, unit, Path(work), ["sm_90"], 1)["ok"]:
                    chosen.append(unit)
        for unit in chosen:
            record = measure_unit(cb, root, unit, args)
            print(json.dumps(record), flush=True)
            records.append(record)
        if cb["name"] == args.tree and len(chosen) > 1:
            tree_units = (cb, root, chosen)
    tree = tree_copy(args, tree_units) if tree_units else None
    args.out.write_text(report(records, tree, args))
    (args.out.with_suffix(".json")).write_text(json.dumps({"units": records, "tree": tree}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
