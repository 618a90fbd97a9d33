"""The Markdown report from the raw samples (standard library only, so it is testable anywhere).

A sample is one worker.py line: {"path", "kernel", "import_ms", "init_ms", "first_launch_ms",
"total_ms", "prepare_ms", "get_ms", "launch_ms", "sync_ms", "alloc_ms", "module_import_ms",
"image", "loaded"}. An image (run.py's prepare_images) is one worker.py --write-image line with the
file's sha256: {"kernel", "file", "lowered_name", "kind", "target", "description", "bytes", "sha256"}.
"""
from __future__ import annotations

import statistics

PATHS = {
    "kiln": "(1) Kiln, the binding's launch",
    "kiln-ctypes": "(1c) Kiln, the binding's launch through ctypes alone (KILN_PYTHON_NATIVE=off)",
    "kiln-cupy": "(2) Kiln through CuPy",
    "kiln-cuda-core": "(3) Kiln through cuda.core",
    "cupy-cold": "(4) CuPy RawModule, cold cache",
    "cupy-warm": "(5) CuPy RawModule, warm cache",
    "kiln-program-warm": "(6) Kiln compile_program, warm Kiln cache",
    "cupy-cubin": "(7) floor of (2): CuPy RawModule(path=) on Kiln's image",
    "cuda-core-cubin": "(8) floor of (3): cuda.core ObjectCode on Kiln's image",
}
KILN_PATHS = ("kiln", "kiln-ctypes", "kiln-cupy", "kiln-cuda-core", "kiln-program-warm")
# What a path's processes run with besides run.py's own settings: (1c) is (1) with the binding's
# calls in C turned off, so that one run compares the two.
PATH_ENVIRONMENT = {"kiln-ctypes": {"KILN_PYTHON_NATIVE": "off"}}
# Each Kiln path against its floor: the same library loading the same image from a file, without Kiln.
FLOORS = {"kiln-cupy": "cupy-cubin", "kiln-cuda-core": "cuda-core-cubin"}
FLOOR_PATHS = tuple(FLOORS.values())
FLOOR_TARGET = 1.1  # issue 32: a Kiln path within 1.1x of its floor
ENVIRONMENT_LABELS = {
    "gpu": "GPU", "compute_capability": "compute capability", "nvidia_driver": "NVIDIA driver",
    "cuda_driver_api": "CUDA driver API", "cupy": "CuPy", "cupy_cuda_runtime": "CuPy's CUDA runtime",
    "nvrtc": "NVRTC (CuPy's)", "cccl": "CCCL", "cuda_core": "cuda.core", "cuda_bindings": "cuda.bindings",
    "kiln_example": "kiln-example-wheel", "kiln_binding": "Kiln binding", "kiln_runtime": "Kiln runtime",
    "python": "Python", "numpy": "numpy", "platform": "platform",
}


def stats(values: list[float]) -> tuple[float, float, float]:
    """Median, 10th and 90th percentile."""
    if len(values) < 2:
        return values[0], values[0], values[0]
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    return statistics.median(values), deciles[0], deciles[-1]


def _values(samples: list[dict], path: str, kernel: str, key: str) -> list[float]:
    return [s[key] for s in samples if s["path"] == path and s["kernel"] == kernel]


def _median(samples: list[dict], path: str, kernel: str, key: str) -> float | None:
    values = _values(samples, path, kernel, key)
    return statistics.median(values) if values else None


def _ms(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}" if value >= 100 else f"{value:.2f}"


def _spread(values: list[float]) -> str:
    if not values:
        return "—"
    _, low, high = stats(values)
    return f"{_ms(low)}–{_ms(high)}"


def _ratio(numerator: float | None, denominator: float | None) -> str:
    return "—" if numerator is None or not denominator else f"{numerator / denominator:.3f}"


def _difference(minuend: float | None, subtrahend: float | None) -> str:
    """Signed, in ms: Kiln's share, a Kiln path's median less its floor's."""
    if minuend is None or subtrahend is None:
        return "—"
    value = minuend - subtrahend
    return f"{value:+.1f}" if abs(value) >= 100 else f"{value:+.2f}"


def _present(samples: list[dict], kernels: list[str]) -> list[tuple[str, str]]:
    have = {(s["kernel"], s["path"]) for s in samples}
    return [(kernel, path) for kernel in kernels for path in PATHS if (kernel, path) in have]


def main_table(samples: list[dict], kernels: list[str]) -> list[str]:
    rows = ["| kernel | path | import | CUDA init | first launch | total | first launch p10–p90 | total p10–p90 |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for kernel, path in _present(samples, kernels):
        cells = [_ms(_median(samples, path, kernel, key)) for key in ("import_ms", "init_ms", "first_launch_ms", "total_ms")]
        spreads = [_spread(_values(samples, path, kernel, key)) for key in ("first_launch_ms", "total_ms")]
        rows.append(f"| `{kernel}` | {PATHS[path]} | " + " | ".join(cells + spreads) + " |")
    return rows


def ratio_table(samples: list[dict], kernels: list[str]) -> list[str]:
    rows = ["| kernel | Kiln path | first launch ÷ CuPy warm | first launch ÷ CuPy cold | total ÷ CuPy warm total |",
            "|---|---|---:|---:|---:|"]
    for kernel, path in _present(samples, kernels):
        if path not in KILN_PATHS:
            continue
        first, total = (_median(samples, path, kernel, key) for key in ("first_launch_ms", "total_ms"))
        rows.append(f"| `{kernel}` | {PATHS[path]} | "
                    f"{_ratio(first, _median(samples, 'cupy-warm', kernel, 'first_launch_ms'))} | "
                    f"{_ratio(first, _median(samples, 'cupy-cold', kernel, 'first_launch_ms'))} | "
                    f"{_ratio(total, _median(samples, 'cupy-warm', kernel, 'total_ms'))} |")
    return rows


def _floor_pairs(samples: list[dict], kernels: list[str]) -> list[tuple[str, str, str]]:
    """(kernel, Kiln path, floor path) where either of the two was measured."""
    have = {(s["kernel"], s["path"]) for s in samples}
    return [(kernel, kiln, floor) for kernel in kernels for kiln, floor in FLOORS.items()
            if (kernel, kiln) in have or (kernel, floor) in have]


def floor_table(samples: list[dict], kernels: list[str]) -> list[str]:
    rows = ["| kernel | Kiln path | first launch ÷ floor | Kiln's share of the first launch (ms) | "
            "total ÷ floor total | Kiln's share of the total (ms) |",
            "|---|---|---:|---:|---:|---:|"]
    for kernel, kiln, floor in _floor_pairs(samples, kernels):
        cells = []
        for key in ("first_launch_ms", "total_ms"):
            mine, theirs = _median(samples, kiln, kernel, key), _median(samples, floor, kernel, key)
            cells += [_ratio(mine, theirs), _difference(mine, theirs)]
        rows.append(f"| `{kernel}` | {PATHS[kiln]} | " + " | ".join(cells) + " |")
    return rows


def floor_summary(samples: list[dict], kernels: list[str]) -> list[str]:
    """How many (kernel, Kiln path) pairs are within FLOOR_TARGET of their floor, for each measure."""
    rows = []
    for key, what in (("first_launch_ms", "first launch"), ("total_ms", "total")):
        ratios = []
        for kernel, kiln, floor in _floor_pairs(samples, kernels):
            mine, theirs = _median(samples, kiln, kernel, key), _median(samples, floor, kernel, key)
            if mine is not None and theirs:
                ratios.append(mine / theirs)
        if ratios:
            within = sum(1 for ratio in ratios if ratio <= FLOOR_TARGET)
            rows.append(f"- {what}: {within} of {len(ratios)} within {FLOOR_TARGET:g}× of the floor "
                        f"(largest ratio {max(ratios):.3f})")
    return rows


def breakdown_table(samples: list[dict], kernels: list[str]) -> list[str]:
    rows = ["| kernel | path | prepare | get kernel | launch | synchronize | allocation (excluded) | "
            "collector in the first launch |",
            "|---|---|---:|---:|---:|---:|---:|---|"]
    for kernel, path in _present(samples, kernels):
        cells = [_ms(_median(samples, path, kernel, key))
                 for key in ("prepare_ms", "get_ms", "launch_ms", "sync_ms", "alloc_ms")]
        rows.append(f"| `{kernel}` | {PATHS[path]} | " + " | ".join(cells) + f" | {_collector(samples, path, kernel)} |")
    return rows


def _collector(samples: list[dict], path: str, kernel: str) -> str:
    """Python's garbage collector inside the first launch (worker.py collects before the clock
    starts): in how many runs it ran, and its median time over those runs."""
    mine = [s for s in samples if s["path"] == path and s["kernel"] == kernel and "gc_ms" in s]
    if not mine:
        return "—"
    ran = [s["gc_ms"] for s in mine if s["gc_generations"]]
    return f"{len(ran)} of {len(mine)} runs" + (f", {_ms(statistics.median(ran))}" if ran else "")


def notes(samples: list[dict], kernels: list[str], images: dict | None = None) -> list[str]:
    rows = []
    for kernel in kernels:
        loaded = sorted({s["image"] for s in samples if s["kernel"] == kernel and s.get("image")})
        if loaded:
            rows.append(f"- `{kernel}`: Kiln loaded {'; '.join(loaded)}")
        image = (images or {}).get(kernel)
        if image:
            rows.append(f"- `{kernel}`: the floors loaded Kiln's image from a file: {image['description']}, "
                        f"{image['kind']} {image['target']}, {image['bytes']} bytes, sha256 {image['sha256'][:16]}, "
                        f"kernel `{image['lowered_name']}`")
    for path in PATHS:
        mine = [s for s in samples if s["path"] == path]
        if not mine:
            continue
        modules = sorted({m for s in mine for m in s["module_import_ms"]})
        imports = ", ".join(f"{m} {_ms(statistics.median(s['module_import_ms'][m] for s in mine))}" for m in modules)
        nvrtc = sum(1 for s in mine if s["loaded"].get("libnvrtc"))
        native = sum(1 for s in mine if s.get("native"))
        calls = f"; the binding's calls in C (kiln._native) in {native} of them" if path in KILN_PATHS else ""
        rows.append(f"- {PATHS[path]}: imports (median ms) {imports}; libnvrtc mapped in "
                    f"{nvrtc} of {len(mine)} processes{calls}")
    return rows


def render(samples: list[dict], environment: dict, config: dict, images: dict | None = None) -> str:
    kernels = config["kernels"]
    lines = ["# First launch from Python: Kiln's example wheel against CuPy", ""]
    lines += [f"- {ENVIRONMENT_LABELS.get(key, key)}: {value}" for key, value in environment.items()]
    lines += [f"- {key}: {value}" for key, value in config.items() if key != "kernels"]
    lines += ["", f"Medians of {config['runs']} fresh processes per row (interleaved), in milliseconds. "
              "total = import + CUDA init + first launch (get the kernel, launch, synchronize); "
              "allocating and uploading the inputs is timed apart and excluded. See "
              "bench/python_first_launch/README.md.", ""]
    lines += main_table(samples, kernels)
    lines += ["", "Ratios of medians (below 1: Kiln is faster):", ""]
    lines += ratio_table(samples, kernels)
    if _floor_pairs(samples, kernels):
        lines += ["", "Kiln against its floor, the same library loading the same image from a file without Kiln "
                  "((2) against (7), (3) against (8)): ratios of medians, and Kiln's share, the difference "
                  f"of the medians in ms (issue 32's target: within {FLOOR_TARGET:g}×):", ""]
        lines += floor_table(samples, kernels)
        lines += ["", *floor_summary(samples, kernels)]
    lines += ["", "Where the first launch goes (medians, ms): prepare = `kiln_example.package()` or "
              "`cupy.RawModule(...)`; get kernel = `pkg.kernel/cupy_kernel/cuda_core_kernel(name)` or "
              "`RawModule.get_function(name)` (CuPy's compile or cache read happens here; for (7), its "
              "load of the image file); for (8), prepare = reading the file and `ObjectCode.from_cubin`, "
              "get kernel = `ObjectCode.get_kernel(lowered name)`. The collector column: in how many runs "
              "Python's garbage collector ran inside the first launch, and its median time in those runs "
              "(included in the figures above; worker.py collects before starting the clock):", ""]
    lines += breakdown_table(samples, kernels)
    lines += ["", *notes(samples, kernels, images)]
    return "\n".join(lines) + "\n"
