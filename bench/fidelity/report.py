"""The fidelity benchmark's report: per code base, what nvcc compiles, what Kiln builds, precision and
recall by kernel of the scan and of the build, the failure modes left, and time against nvcc."""
import re
import statistics
from collections import Counter, defaultdict

import symbols

# Failure modes by the first error's text: (label, pattern). The first that matches names the mode.
MODES = [
    ("no matching host min/max/isfinite", r"no matching function for call to '(min|max|isfinite|isnan|isinf|signbit)'"),
    ("cache-hinted load/store", r"__(ld|st)(cg|ca|cs|lu|cv|wb|wt)\b"),
    ("surface/texture function", r"\b(surf|tex)[0-9A-Za-z]*(read|write|fetch|Lod|Grad|Layered|gather)?\b.*(undeclared|no matching)"),
    ("__shared__ with a constructor", r"initialization is not supported for __shared__"),
    ("attribute placement", r"attribute"),
    ("inline asm", r"asm|constraint|% escape"),
    ("variable-length array", r"variable-sized|variable length"),
    ("missing header", r"file not found|cannot open source file"),
    ("undeclared identifier", r"use of undeclared identifier|undeclared"),
    ("call to host function from device code", r"reference to __host__ function|calling a __host__"),
    ("no matching function", r"no matching function"),
    ("nvJitLink", r"nvJitLink|linking for"),
    ("timeout", r"timed out"),
]


def mode_of(message):
    for label, pattern in MODES:
        if re.search(pattern, message):
            return label
    return "other"


def percent(part, whole):
    return "—" if whole == 0 else f"{100.0 * part / whole:.1f}%"


def seconds(values):
    return f"{sum(values):.0f} s (median {statistics.median(values):.2f} s)" if values else "—"


# The scan reports the user's kernels, never the toolkit's (CUB's, Thrust's, libcu++'s): those are
# left out of what its recall is measured against.
TOOLKIT = re.compile(r"^(cub|thrust|cuda|cooperative_groups|nv|cute|cutlass)::")


def compare(found, expected):
    """(true positives, found, expected) of two sets of comparable names."""
    return len(found & expected), len(found), len(expected)


def summarize(records):
    names = symbols.demangle_all({s for r in records for step in ("oracle", "build")
                                  for s in r.get(step, {}).get("symbols", [])})
    comparable = {s: symbols.comparable(n) for s, n in names.items()}
    rows = defaultdict(lambda: defaultdict(int))
    examples = defaultdict(dict)
    times = defaultdict(lambda: defaultdict(list))
    for r in records:
        cb, o = r["codebase"], r["oracle"]
        row = rows[cb]
        row["units"] += 1
        if "benchmark_error" in r:
            row["build mode: benchmark error"] += 1
            examples[cb].setdefault(("build", "benchmark error"), (r["unit"], r["benchmark_error"]))
            continue
        if not o["ok"]:
            continue
        expected = {comparable[s] for s in o["symbols"]}
        row["nvcc"] += 1
        row["with_kernels"] += bool(expected)
        row["oracle_kernels"] += len(expected)
        times[cb]["nvcc"].append(o["seconds"])
        s, b = r["scan"], r["build"]
        times[cb]["scan"].append(s["seconds"])
        times[cb]["build"].append(b["seconds"])
        users = {n for n in expected if not TOOLKIT.match(n)}
        if s["ok"]:
            row["scanned"] += 1
            found = {symbols.comparable(n) for n in s["names"]}
            tp, nf, ne = compare(found, users)
            for missing in sorted(users - found)[:1]:
                examples[cb].setdefault(("scan missed", "a kernel nvcc builds that the scan does not name"),
                                        (r["unit"], missing))
            row["scan_tp"] += tp
            row["scan_found"] += nf
            row["scan_expected"] += ne
        else:
            row["scan_expected"] += len(users)
            mode = mode_of(s["error"])
            examples[cb].setdefault(("scan", mode), (r["unit"], s["error"]))
            row[f"scan mode: {mode}"] += 1
        if b["ok"]:
            row["built"] += 1
            row["lost_discovery"] += b["lost_discovery"]
            row["by nvcc"] += b["compiler"] == "nvcc"
            row["nvcc fallback"] += b["nvcc_fallback"]
            found = {comparable[x] for x in b["symbols"]}
            tp, nf, ne = compare(found, expected)
            row["build_tp"] += tp
            row["build_found"] += nf
            row["build_expected"] += ne
            for missing in sorted(expected - found)[:1]:
                examples[cb].setdefault(("missed", "kernel nvcc builds, Kiln does not"), (r["unit"], missing))
            for extra in sorted(found - expected)[:1]:
                examples[cb].setdefault(("extra", "kernel Kiln builds, nvcc does not"), (r["unit"], extra))
        else:
            row["build_expected"] += len(expected)
            mode = mode_of(b["error"])
            examples[cb].setdefault(("build", mode), (r["unit"], b["error"]))
            row[f"build mode: {mode}"] += 1
    return rows, examples, times


def markdown(records, pins, args):
    rows, examples, times = summarize(records)
    out = ["# Fidelity: Kiln against nvcc on public CUDA code bases", "",
           "`python3 bench/fidelity/run.py` (bench/fidelity/README.md). Each translation unit alone, for sm_90: "
           "the oracle is the kernel symbols of `nvcc -cubin -arch=sm_90`; Kiln builds a one-source manifest "
           "with the same flags. Kernels are compared by demangled name (bench/fidelity/symbols.py).", ""]
    out.append("| code base | commit | units | nvcc compiles | ...with kernels | nvcc's kernels | Kiln builds | "
               "build recall | build precision | scan reads | scan recall | scan precision | lost discovery |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    total = Counter()
    for cb, row in sorted(rows.items()):
        total.update(row)
        out.append(f"| {cb} | `{pins[cb]['commit'][:12]}` | {row['units']} | {row['nvcc']} | {row['with_kernels']} | "
                   f"{row['oracle_kernels']} | {row['built']} | {percent(row['build_tp'], row['build_expected'])} | "
                   f"{percent(row['build_tp'], row['build_found'])} | {row['scanned']} | "
                   f"{percent(row['scan_tp'], row['scan_expected'])} | {percent(row['scan_tp'], row['scan_found'])} | "
                   f"{row['lost_discovery']} |")
    out.append(f"| **all** | | {total['units']} | {total['nvcc']} | {total['with_kernels']} | {total['oracle_kernels']} | "
               f"{total['built']} | **{percent(total['build_tp'], total['build_expected'])}** | "
               f"**{percent(total['build_tp'], total['build_found'])}** | {total['scanned']} | "
               f"{percent(total['scan_tp'], total['scan_expected'])} | {percent(total['scan_tp'], total['scan_found'])} | "
               f"{total['lost_discovery']} |")
    out += ["", "Compilers of the units Kiln built: " + ", ".join(
        f"{cb}: {row['built'] - row['by nvcc']} NVRTC, {row['by nvcc'] - row['nvcc fallback']} nvcc (host code), "
        f"{row['nvcc fallback']} nvcc after NVRTC rejected them" for cb, row in sorted(rows.items())) + "."]
    out += ["", "Recall: of the kernels nvcc builds from the units it compiles alone, the share Kiln's package holds "
            "(the scan: the share of the user's kernels it names; it never reports the toolkit's, such as CUB's). Precision: of the kernels Kiln holds (names), the share nvcc builds. "
            "Lost discovery: units Kiln built although its scan could not read them (the compiler decided).", ""]
    out += ["## Time (sum over the units nvcc compiles; median per unit)", "",
            "| code base | nvcc -cubin | kiln scan | kiln build (scan included) | build / nvcc |", "|---|---:|---:|---:|---:|"]
    for cb, t in sorted(times.items()):
        ratio = sum(t["build"]) / sum(t["nvcc"]) if sum(t["nvcc"]) else 0
        out.append(f"| {cb} | {seconds(t['nvcc'])} | {seconds(t['scan'])} | {seconds(t['build'])} | {ratio:.2f} |")
    out += ["", f"{args.jobs} units at a time on this machine; absolute times hold only here.", "",
            "## Failure modes left, one example each", ""]
    any_mode = False
    for cb in sorted(examples):
        for (step, mode), (unit, message) in sorted(examples[cb].items()):
            count = rows[cb].get(f"{step} mode: {mode}", "")
            any_mode = True
            out.append(f"- **{cb}**, {step}{f' ({count} units)' if count else ''}: {mode}: `{unit}`: {message}")
    if not any_mode:
        out.append("None.")
    return "\n".join(out) + "\n"
