#!/usr/bin/env python3
"""Kiln vs nvcc: image size per target and build time of a whole package (issue 2).

Reported, not asserted: the script prints a Markdown report and writes it to --out. It works in a
temporary directory and writes nothing into the repository except --out. See bench/README.md for
what each figure means.

    python3 bench/size_and_build_time.py [--kiln PATH] [--cuda DIR] [--runs N] [--out FILE]

Python 3.9+, standard library only. Needs kiln, nvcc and g++; `zstd` (the command) is optional and
only used to decode Kiln's sm_90 CUB image for the section breakdown.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import re
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
EXAMPLE_DIR = REPO / "examples" / "saxpy"
CUB_SOURCE = BENCH_DIR / "kernels" / "cub_block_reduce.cu"
NVRTC_HELPER = BENCH_DIR / "tools" / "nvrtc_cubin.cpp"
DEFAULT_OUT = BENCH_DIR / "results" / "size-and-build-time.md"

# The units compared. `kiln_source` is the unit's path as the package records it; `wrapper` is the
# translation unit nvcc compiles: the source plus explicit instantiations of exactly the templates the
# manifest asks Kiln for, so both compilers emit the same kernels. Each wrapper has the basename of its
# source (in another directory, so it includes the source with <...> through -I): nvcc names the
# internal-linkage device objects it keeps after the file (_ZN.._INTERNAL_<hash>_<len>_<file>_cu_...),
# so a longer wrapper name would make nvcc's cubin larger than compiling the source itself would.
SAXPY_WRAPPER = """\
// nvcc's translation unit for kernels/saxpy.cu: the kernels kiln.toml builds.
#include <saxpy.cu>
template __global__ void scale<float>(float*, float, int);
template __global__ void scale<double>(double*, double, int);
"""
BLOCK_SUM_WRAPPER = """\
// nvcc's translation unit for kernels/block_sum.cu: the kernels kiln.toml builds.
#include <block_sum.cu>
template __global__ void block_sum<float, 128>(const float*, float*, int);
template __global__ void block_sum<float, 256>(const float*, float*, int);
template __global__ void block_sum<double, 128>(const double*, double*, int);
template __global__ void block_sum<double, 256>(const double*, double*, int);
"""
CUB_WRAPPER = """\
// nvcc's translation unit for kernels/cub_block_reduce.cu: the one kernel the manifest builds.
#include <cub_block_reduce.cu>
template __global__ void block_reduce<float, 256>(const float*, float*, int);
"""
# No `targets`: Kiln's default set, as for the bundled example.
CUB_MANIFEST = """\
name = "cub_block_reduce"
compress = true

[[source]]
path = "kernels/cub_block_reduce.cu"
instantiate = ["block_reduce<float, 256>"]
"""
CUB_NAME_EXPR = "block_reduce<float, 256>"


@dataclass
class Unit:
    title: str
    kiln_source: str  # the unit's source as the package names it
    source_dir: Path  # where nvcc's -I points (the source's directory, in the temp copy)
    wrapper: Path  # nvcc's translation unit
    kiln: dict = field(default_factory=dict)  # target -> (decoded, stored)
    nvcc: dict = field(default_factory=dict)  # target -> bytes


def fail(message: str) -> NoReturn:
    print(f"size_and_build_time: {message}", file=sys.stderr)
    sys.exit(1)


def run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        fail(f"command failed ({result.returncode}): {' '.join(map(str, cmd))}\n{result.stdout}{result.stderr}")
    return result


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------------
# Targets and the nvcc command lines for them

def is_ptx(target: str) -> bool:
    return target.startswith("compute_")


def nvcc_image_cmd(nvcc: Path, unit: Unit, target: str, out: Path) -> list:
    """nvcc's image of one unit for one target: -cubin -arch=sm_XX, or -ptx -arch=compute_XX."""
    kind = "-ptx" if is_ptx(target) else "-cubin"
    return [nvcc, kind, f"-arch={target}", f"-I{unit.source_dir}", unit.wrapper, "-o", out]


def gencode_args(targets: list) -> list:
    """-gencode for every target: arch=compute_XX,code=sm_XX for cubins, code=compute_XX for PTX."""
    args = []
    for t in targets:
        if is_ptx(t):
            args += ["-gencode", f"arch={t},code={t}"]
        else:
            args += ["-gencode", f"arch=compute_{t[len('sm_'):]},code={t}"]
    return args


def nvcc_fatbin_cmd(nvcc: Path, unit: Unit, targets: list, out: Path, extra=()) -> list:
    return [nvcc, "-fatbin", *gencode_args(targets), *extra, f"-I{unit.source_dir}", unit.wrapper, "-o", out]


# ---------------------------------------------------------------------------------------------------
# Kiln packages

def kiln_inspect(kiln: Path, package: Path) -> dict:
    return json.loads(run([kiln, "inspect", package, "--json"]).stdout)


def read_kiln_image(package: Path, unit_source: str, target: str) -> bytes | None:
    """The decoded bytes of one image, read as docs/package-format.md describes (zstd via the `zstd`
    command, since Python's standard library has no zstd before 3.14). None if `zstd` is missing."""
    data = package.read_bytes()
    if data[:8] != b"\x89KILN\r\n\x1a":
        fail(f"{package} is not a Kiln package")
    toc_offset, section_count = struct.unpack_from("<QI", data, 24)
    sections = {}
    for i in range(section_count):
        kind, _flags, offset, size, _checksum = struct.unpack_from("<IIQQQ", data, toc_offset + 32 * i)
        sections[kind] = data[offset:offset + size]
    strings = sections[1]

    def string(ref_at: bytes, at: int) -> str:
        offset, length = struct.unpack_from("<II", ref_at, at)
        return strings[offset:offset + length].decode()

    targets = [string(sections[2], at) for at in range(0, len(sections[2]), 16)]
    units = [string(sections[3], at) for at in range(0, len(sections[3]), 16)]
    images = sections[4]
    for at in range(0, len(images), 48):
        unit, tgt, offset, stored, raw, _checksum, encoding, _ptx = struct.unpack_from("<IIQQQQII", images, at)
        if units[unit] != unit_source or targets[tgt] != target:
            continue
        blob = sections[11][offset:offset + stored]
        if encoding == 0:
            return blob
        zstd = shutil.which("zstd")
        if zstd is None:
            return None
        decoded = subprocess.run([zstd, "-d", "-c", "-q"], input=blob, capture_output=True, check=True).stdout
        if len(decoded) != raw:
            fail(f"{unit_source} {target}: decoded {len(decoded)} bytes, the package says {raw}")
        return decoded
    fail(f"{package} has no image for {unit_source} {target}")


# ---------------------------------------------------------------------------------------------------
# ELF section breakdown (what `readelf -SW` shows, grouped)

SECTION_GROUPS = [
    ("code (`.text.*`)", lambda n: n.startswith(".text")),
    ("kernel params (`.nv.constant0.*`)", lambda n: n.startswith(".nv.constant0")),
    ("other constant banks (`.nv.constant[1-9]*`)", lambda n: n.startswith(".nv.constant")),
    ("kernel info (`.nv.info*`, `.nv.callgraph`, `.nv.compat`)",
     lambda n: n.startswith(".nv.info") or n in (".nv.callgraph", ".nv.compat")),
    ("symbol names (`.strtab`)", lambda n: n == ".strtab"),
    ("symbols (`.symtab`)", lambda n: n == ".symtab"),
    ("relocations (`.rela.*`)", lambda n: n.startswith(".rela")),
    ("debug frames (`.debug_*`)", lambda n: n.startswith(".debug")),
    ("notes (`.note.*`)", lambda n: n.startswith(".note")),
    ("section names (`.shstrtab`)", lambda n: n == ".shstrtab"),
    ("other sections", lambda n: True),
]
SHT_NOBITS = 8


@dataclass
class ElfSummary:
    size: int
    sections: list  # (name, type, bytes in file)
    symbols: int

    def grouped(self) -> dict:
        groups = {name: 0 for name, _ in SECTION_GROUPS}
        for name, sh_type, size in self.sections:
            if sh_type == SHT_NOBITS:
                continue
            for group, matches in SECTION_GROUPS:
                if matches(name):
                    groups[group] += size
                    break
        covered = sum(groups.values())
        groups["ELF header, section table, alignment"] = self.size - covered
        return groups


def elf_summary(data: bytes) -> ElfSummary:
    if data[:4] != b"\x7fELF" or data[4] != 2:
        fail("not a 64-bit ELF file")
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(e_shnum):
        name, sh_type, _flags, _addr, offset, size, _link, _info, _align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", data, e_shoff + i * e_shentsize)
        headers.append((name, sh_type, offset, size, entsize))
    strtab_offset = headers[e_shstrndx][2]
    sections, symbols = [], 0
    for name_at, sh_type, _offset, size, entsize in headers[1:]:
        start = strtab_offset + name_at
        name = data[start:data.index(b"\0", start)].decode()
        sections.append((name, sh_type, size))
        if name == ".symtab" and entsize:
            symbols = size // entsize
    return ElfSummary(len(data), sections, symbols)


# ---------------------------------------------------------------------------------------------------
# Build time

@dataclass
class Timing:
    wall: list = field(default_factory=list)
    cpu: list = field(default_factory=list)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(commands: list, parallel: bool) -> tuple:
    """Runs the commands (all at once, or one after another); returns (wall s, CPU s of the children)."""
    cpu0, t0 = children_cpu(), time.perf_counter()
    if parallel:
        procs = [subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for cmd in commands]
        outputs = [p.communicate() for p in procs]
        codes = [p.returncode for p in procs]
    else:
        outputs, codes = [], []
        for cmd in commands:
            p = subprocess.run([str(c) for c in cmd], capture_output=True)
            outputs.append((p.stdout, p.stderr))
            codes.append(p.returncode)
    wall, cpu = time.perf_counter() - t0, children_cpu() - cpu0
    for cmd, code, (out, err) in zip(commands, codes, outputs):
        if code != 0:
            fail(f"command failed ({code}): {' '.join(map(str, cmd))}\n{out.decode()}{err.decode()}")
    return wall, cpu


# ---------------------------------------------------------------------------------------------------
# Formatting

def fmt_bytes(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


def fmt_ratio(a: int | float | None, b: int | float | None) -> str:
    return "—" if not a or not b else f"{a / b:.2f}"


def table(header: list, rows: list, align: list | None = None) -> str:
    align = align or ["l"] + ["r"] * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def machine_description(nvcc: Path, kiln: Path) -> list:
    os_name = platform.system()
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    cpu = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    release = run([nvcc, "--version"]).stdout
    match = re.search(r"release [\d.]+, V([\d.]+)", release)
    cuda = match.group(1) if match else "unknown"
    kiln_version = run([kiln, "--version"]).stdout.strip()
    return [
        f"- Machine: {os.cpu_count()}-core {os_name} ({cpu}), Linux {platform.release()}, no GPU",
        f"- CUDA {cuda} (nvcc, NVRTC and nvJitLink of the same toolkit); {kiln_version}",
        f"- Date: {datetime.date.today().isoformat()}",
    ]


# ---------------------------------------------------------------------------------------------------

def main() -> None:
    # Every build here measures compiling: Kiln's compile and scan cache stays out of it.
    os.environ["KILN_CACHE"] = "0"
    default_kiln = Path("/tmp/build-main/bin/kiln")
    if not default_kiln.exists():
        default_kiln = REPO / "build" / "bin" / "kiln"
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kiln", type=Path, default=default_kiln, help=f"the kiln binary (default {default_kiln})")
    parser.add_argument("--cuda", type=Path, default=Path("/usr/local/cuda"), help="the CUDA toolkit (default /usr/local/cuda)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each build (default 3); the median is reported")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="Markdown file to write (default bench/results/size-and-build-time.md)")
    parser.add_argument("--no-build-time", action="store_true", help="measure sizes only")
    parser.add_argument("--keep-temp", action="store_true", help="keep the temporary directory (its path is printed)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    kiln = args.kiln.resolve()
    cuda = args.cuda.resolve()
    nvcc = cuda / "bin" / "nvcc"
    for path, what in ((kiln, "kiln"), (nvcc, "nvcc")):
        if not path.is_file():
            fail(f"{what} not found at {path}")
    gxx = shutil.which("g++")
    if gxx is None:
        fail("g++ not found (needed for the plain-NVRTC helper)")
    out_path = args.out.resolve()

    cores = os.cpu_count() or 1
    temp = Path(tempfile.mkdtemp(prefix="kiln-bench-"))
    try:
        report = measure(args, kiln, cuda, nvcc, gxx, temp, cores)
    finally:
        if args.keep_temp:
            log(f"kept {temp}")
        else:
            shutil.rmtree(temp, ignore_errors=True)
    print(report)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(report)
    log(f"wrote {out_path}")


def measure(args, kiln: Path, cuda: Path, nvcc: Path, gxx: str, temp: Path, cores: int) -> str:
    started = time.perf_counter()
    load_before = os.getloadavg()

    # --- Inputs, copied so that nothing is written next to the repository's sources -----------------
    saxpy_dir = temp / "saxpy"
    shutil.copytree(EXAMPLE_DIR, saxpy_dir)
    # Packages store images raw by default; this benchmark reports both sizes, so it asks for zstd
    # (the decoded size is the same either way).
    manifest = saxpy_dir / "kiln.toml"
    manifest.write_text(manifest.read_text().replace('name = "saxpy"\n', 'name = "saxpy"\ncompress = true\n', 1))
    cub_dir = temp / "cub"
    (cub_dir / "kernels").mkdir(parents=True)
    shutil.copy2(CUB_SOURCE, cub_dir / "kernels" / CUB_SOURCE.name)
    (cub_dir / "kiln.toml").write_text(CUB_MANIFEST)
    wrappers = temp / "wrappers"
    wrappers.mkdir()
    for name, text in (("saxpy.cu", SAXPY_WRAPPER), ("block_sum.cu", BLOCK_SUM_WRAPPER),
                       ("cub_block_reduce.cu", CUB_WRAPPER)):
        (wrappers / name).write_text(text)
    work = temp / "out"
    work.mkdir()

    example_units = [
        Unit("kernels/saxpy.cu", "kernels/saxpy.cu", saxpy_dir / "kernels", wrappers / "saxpy.cu"),
        Unit("kernels/block_sum.cu", "kernels/block_sum.cu", saxpy_dir / "kernels", wrappers / "block_sum.cu"),
    ]
    cub_unit = Unit("bench/kernels/cub_block_reduce.cu", "kernels/cub_block_reduce.cu", cub_dir / "kernels",
                    wrappers / "cub_block_reduce.cu")

    # --- Kiln packages (default targets, default -j) --------------------------------------------------
    log("kiln build: examples/saxpy and the CUB kernel")
    saxpy_pkg, cub_pkg = work / "saxpy.kiln", work / "cub_block_reduce.kiln"
    run([kiln, "build", saxpy_dir / "kiln.toml", "-o", saxpy_pkg, "--cuda-root", cuda])
    run([kiln, "build", cub_dir / "kiln.toml", "-o", cub_pkg, "--cuda-root", cuda])
    saxpy_info, cub_info = kiln_inspect(kiln, saxpy_pkg), kiln_inspect(kiln, cub_pkg)
    targets = saxpy_info["targets"]
    if cub_info["targets"] != targets:
        fail(f"the two packages have different targets: {targets} vs {cub_info['targets']}")
    for info, units in ((saxpy_info, example_units), (cub_info, [cub_unit])):
        for unit in units:
            (record,) = [u for u in info["units"] if u["source"] == unit.kiln_source]
            unit.kiln = {img["target"]: (img["size"], img["stored_size"]) for img in record["images"]}

    # --- nvcc images, per unit and target (as many compiles at once as there are cores) --------------
    all_units = example_units + [cub_unit]
    log(f"nvcc -cubin / -ptx: {len(all_units)} units x {len(targets)} targets")
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=cores) as pool:
        for ui, unit in enumerate(all_units):
            for target in targets:
                image = work / f"nvcc-{ui}-{target}.{'ptx' if is_ptx(target) else 'cubin'}"
                jobs[(ui, target)] = (image, pool.submit(run, nvcc_image_cmd(nvcc, unit, target, image)))
        for (ui, target), (image, future) in jobs.items():
            future.result()
            all_units[ui].nvcc[target] = image.stat().st_size

    # --- Plain NVRTC cubin of the CUB kernel at sm_90, and the three sm_90 cubins' sections ----------
    log("plain NVRTC cubin (no -dlto) of the CUB kernel at sm_90")
    helper = temp / "nvrtc_cubin"
    run([gxx, "-std=c++17", "-O1", f"-I{cuda / 'include'}", NVRTC_HELPER, f"-L{cuda / 'lib64'}", "-lnvrtc",
         f"-Wl,-rpath,{cuda / 'lib64'}", "-o", helper])
    plain_cubin = work / "nvrtc-plain-sm_90.cubin"
    run([helper, cub_dir / "kernels" / CUB_SOURCE.name, plain_cubin, CUB_NAME_EXPR, "-arch=sm_90",
         f"-I{cuda / 'include' / 'cccl'}", f"-I{cuda / 'include'}"])
    cubins_90 = {
        "Kiln (NVRTC -dlto + nvJitLink -lto -optimize-unused-variables)":
            read_kiln_image(cub_pkg, cub_unit.kiln_source, "sm_90"),
        "nvcc -cubin -arch=sm_90": (work / f"nvcc-{all_units.index(cub_unit)}-sm_90.cubin").read_bytes(),
        "plain NVRTC -arch=sm_90 (no LTO)": plain_cubin.read_bytes(),
    }

    # --- Fatbins, once, for their sizes (default compression, and -compress-mode=size) ---------------
    log("nvcc -fatbin for the example's two units (default compression and -compress-mode=size)")
    fatbin_sizes = {"default": 0, "size": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=cores) as pool:
        futures = []
        for ui, unit in enumerate(example_units):
            for mode in fatbin_sizes:
                extra = [] if mode == "default" else ["-compress-mode=size"]
                fatbin = work / f"size-{ui}-{mode}.fatbin"
                futures.append((mode, fatbin, pool.submit(run, nvcc_fatbin_cmd(nvcc, unit, targets, fatbin, extra))))
        for mode, fatbin, future in futures:
            future.result()
            fatbin_sizes[mode] += fatbin.stat().st_size

    # --- Build time ----------------------------------------------------------------------------------
    timings = {}
    configs = []
    if not args.no_build_time:
        # kiln -jN compiles N (source, target) pairs at once; nvcc gets one process per unit. With
        # two units, "parallel" is 2 processes for nvcc and -j2 for Kiln.
        par = len(example_units)

        def kiln_cmd(jobs: int, run_index: int) -> list:
            out = work / f"time-j{jobs}-{run_index}.kiln"
            return [[kiln, "build", saxpy_dir / "kiln.toml", "-o", out, "-j", str(jobs), "--cuda-root", cuda]]

        def nvcc_cmds(mode: str, run_index: int, extra=()) -> list:
            return [nvcc_fatbin_cmd(nvcc, unit, targets, work / f"time-{mode}-{run_index}-{ui}.fatbin", extra)
                    for ui, unit in enumerate(example_units)]

        configs = [
            (f"kiln build -j{par}", lambda r: (kiln_cmd(par, r), False)),
            (f"nvcc -fatbin, {par} units in parallel ({par} processes)", lambda r: (nvcc_cmds("par", r), True)),
            ("kiln build -j1", lambda r: (kiln_cmd(1, r), False)),
            ("nvcc -fatbin, units one after another", lambda r: (nvcc_cmds("seq", r), False)),
            # Not part of the pairing above: nvcc's own parallelism (one thread per -gencode), for reference.
            (f"nvcc -fatbin --threads {cores}, units one after another",
             lambda r: (nvcc_cmds("threads", r, ["--threads", str(cores)]), False)),
        ]
        timings = {name: Timing() for name, _ in configs}
        for r in range(args.runs):
            # Rotate the order from run to run, so that no configuration always runs first or last.
            order = configs[r % len(configs):] + configs[:r % len(configs)]
            for name, make in order:
                commands, parallel = make(r)
                log(f"run {r + 1}/{args.runs}: {name}")
                wall, cpu = timed(commands, parallel)
                timings[name].wall.append(wall)
                timings[name].cpu.append(cpu)
        # The timed builds must produce what the size figures describe.
        if (work / f"time-j{par}-0.kiln").read_bytes() != saxpy_pkg.read_bytes():
            fail("the timed kiln build differs from the measured package")

    load_after = os.getloadavg()
    elapsed = time.perf_counter() - started

    # --- Report --------------------------------------------------------------------------------------
    md = ["# Kiln vs nvcc: image size and build time", ""]
    md += machine_description(nvcc, kiln)
    md += [
        f"- Targets (Kiln's default set): {' '.join(targets)}",
        f"- Load average (1 min) at start / end: {load_before[0]:.2f} / {load_after[0]:.2f}"
        f" (build times are wall-clock and move with other load on the machine)",
        f"- Generated by `python3 bench/size_and_build_time.py --runs {args.runs}"
        f"{' --no-build-time' if args.no_build_time else ''}` in {elapsed:.0f} s;"
        " see bench/README.md for what each figure means.",
        "",
        "## 1. Image size per target",
        "",
        "*kiln decoded* is the image the driver loads (`size` in `kiln inspect --json`), *kiln stored* is its"
        " zstd frame in the package (`stored_size`), *nvcc -cubin* is the file from `nvcc -cubin -arch=sm_XX`"
        " (`nvcc -ptx -arch=compute_75` for the PTX row) of a wrapper .cu that includes the source and explicitly"
        " instantiates the same templates. *ratio* is kiln decoded ÷ nvcc (below 1: Kiln's image is smaller);"
        " *stored ratio* is kiln stored ÷ nvcc. Kiln's PTX size counts its terminating NUL.",
        "",
    ]
    for unit in all_units:
        kernels = sorted(k["name"] for k in (cub_info if unit is cub_unit else saxpy_info)["kernels"]
                         if k["unit"] == unit.kiln_source)
        md += [f"### {unit.title}", "", "Kernels: " + ", ".join(f"`{k}`" for k in kernels), ""]
        rows = []
        totals = [0, 0, 0]
        for target in targets:
            decoded, stored = unit.kiln[target]
            theirs = unit.nvcc[target]
            totals = [totals[0] + decoded, totals[1] + stored, totals[2] + theirs]
            label = f"{target} (PTX)" if is_ptx(target) else target
            rows.append([label, fmt_bytes(decoded), fmt_bytes(stored), fmt_bytes(theirs),
                         fmt_ratio(decoded, theirs), fmt_ratio(stored, theirs)])
        rows.append(["**all targets**", f"**{totals[0]:,}**", f"**{totals[1]:,}**", f"**{totals[2]:,}**",
                     f"**{fmt_ratio(totals[0], totals[2])}**", f"**{fmt_ratio(totals[1], totals[2])}**"])
        md += [table(["target", "kiln decoded", "kiln stored", "nvcc -cubin", "ratio", "stored ratio"], rows), ""]

    md += [
        "### The CUB kernel at sm_90: where the bytes go",
        "",
        "Bytes in the file per group of ELF sections (as `readelf -SW` lists them; `NOBITS` sections such as"
        " `.nv.shared.*` take no bytes), for Kiln's image, nvcc's `-cubin` and the cubin NVRTC gives by"
        " default (`-arch=sm_90`, no `-dlto`; built by bench/tools/nvrtc_cubin.cpp).",
        "",
    ]
    summaries = {name: (elf_summary(data) if data is not None else None) for name, data in cubins_90.items()}
    names = list(summaries)
    present = [n for n in names if summaries[n] is not None]
    if len(present) < len(names):
        md += ["(Kiln's image could not be decoded: the `zstd` command is not installed.)", ""]
    group_names = list(summaries[present[0]].grouped())
    rows = []
    for group in group_names:
        rows.append([group] + [fmt_bytes(summaries[n].grouped()[group]) if summaries[n] else "—" for n in names])
    rows.append(["**file size**"] + [f"**{summaries[n].size:,}**" if summaries[n] else "—" for n in names])
    rows.append(["symbols (`.symtab` entries)"] + [f"{summaries[n].symbols:,}" if summaries[n] else "—" for n in names])
    md += [table(["section group"] + names, rows), ""]
    kiln_90 = summaries[names[0]]
    nvcc_90 = summaries[names[1]]
    plain_90 = summaries[names[2]]
    if kiln_90 is not None:
        verdict = "no larger than" if kiln_90.size <= nvcc_90.size else "LARGER than"
        md += [
            f"Kiln's sm_90 image of the CUB kernel is **{kiln_90.size:,} bytes, {verdict} nvcc's -cubin"
            f" ({nvcc_90.size:,} bytes; ratio {kiln_90.size / nvcc_90.size:.2f})**. NVRTC's default cubin is"
            f" {plain_90.size:,} bytes ({plain_90.symbols:,} symbols): the LTO link with"
            f" `-optimize-unused-variables` makes it {plain_90.size / kiln_90.size:.0f}x smaller.",
            "",
        ]

    package_size = saxpy_info["size"]
    md += [
        "## 2. Build time of the whole package (examples/saxpy: 2 units x "
        f"{len(targets)} targets)",
        "",
    ]
    if timings:
        md += [
            f"Wall-clock seconds, median of {args.runs} run(s) (min–max), and CPU seconds (user + system, of all"
            " child processes, median). Kiln: `kiln build examples/saxpy/kiln.toml -j N` (a cold clang scan of each"
            " source, with a fresh scan cache every run, then NVRTC -dlto + nvJitLink per"
            " (source, target), N at a time in worker processes). nvcc: `nvcc -fatbin` of each unit's wrapper with"
            " `-gencode arch=compute_XX,code=sm_XX` for each SASS target and"
            " `-gencode arch=compute_75,code=compute_75`. The configurations run in a rotating order.",
            "",
        ]
        rows = []
        medians = {name: statistics.median(t.wall) for name, t in timings.items()}
        for name, t in timings.items():
            rows.append([name, f"{statistics.median(t.wall):.2f}", f"{min(t.wall):.2f}–{max(t.wall):.2f}",
                         f"{statistics.median(t.cpu):.2f}"])
        md += [table(["build", "wall s (median)", "wall s (min–max)", "CPU s (median)"], rows), ""]
        names_t = [name for name, _ in configs]
        md += [
            f"- Parallel: nvcc ÷ kiln = **{medians[names_t[1]] / medians[names_t[0]]:.2f}** (above 1: Kiln is faster)",
            f"- Sequential: nvcc ÷ kiln = **{medians[names_t[3]] / medians[names_t[2]]:.2f}**",
            f"- For reference, nvcc parallelizing its own -gencode targets (`--threads {cores}`), units one after"
            f" another: nvcc ÷ kiln -j{par} = {medians[names_t[4]] / medians[names_t[0]]:.2f}",
            "",
        ]
    else:
        md += ["(skipped: --no-build-time)", ""]
    md += [
        "### Output size",
        "",
        table(["output", "bytes", "vs package"], [
            ["Kiln package (`saxpy.kiln`, all units and targets, zstd images + index)", f"{package_size:,}", "1.00"],
            ["nvcc fatbins, both units (`-fatbin`, default compression)", f"{fatbin_sizes['default']:,}",
             fmt_ratio(fatbin_sizes["default"], package_size)],
            ["nvcc fatbins, both units (`-fatbin -compress-mode=size`)", f"{fatbin_sizes['size']:,}",
             fmt_ratio(fatbin_sizes["size"], package_size)],
        ]),
        "",
    ]
    return "\n".join(md)


if __name__ == "__main__":
    main()
