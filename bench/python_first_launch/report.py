"""The Markdown report from the raw samples (standard library only, so it is testable anywhere).

A sample is one worker.py line: {"path", "kernel", "import_ms", "init_ms", "first_launch_ms",
"total_ms", "prepare_ms", "get_ms", "launch_ms", "sync_ms", "alloc_ms", "module_import_ms",
"image", "loaded"}.
"""
from __future__ import annotations

import statistics

PATHS = {
    "kiln": "(1) Kiln, the binding's launch",
    "kiln-cupy": "(2) Kiln through CuPy",
    "kiln-cuda-core": "(3) Kiln through cuda.core",
    "cupy-cold": "(4) CuPy RawModule, cold cache",
    "cupy-warm": "(5) CuPy RawModule, warm cache",
    "kiln-program-warm": "(6) Kiln compile_program, warm Kiln cache",
}
KILN_PATHS = ("kiln", "kiln-cupy", "kiln-cuda-core", "kiln-program-warm")
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


def breakdown_table(samples: list[dict], kernels: list[str]) -> list[str]:
    rows = ["| kernel | path | prepare | get kernel | launch | synchronize | allocation (excluded) |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for kernel, path in _present(samples, kernels):
        cells = [_ms(_median(samples, path, kernel, key))
                 for key in ("prepare_ms", "get_ms", "launch_ms", "sync_ms", "alloc_ms")]
        rows.append(f"| `{kernel}` | {PATHS[path]} | " + " | ".join(cells) + " |")
    return rows


def notes(samples: list[dict], kernels: list[str]) -> list[str]:
    rows = []
    for kernel in kernels:
        images = sorted({s["image"] for s in samples if s["kernel"] == kernel and s.get("image")})
        if images:
            rows.append(f"- `{kernel}`: Kiln loaded {'; '.join(images)}")
    for path in PATHS:
        mine = [s for s in samples if s["path"] == path]
        if not mine:
            continue
        modules = sorted({m for s in mine for m in s["module_import_ms"]})
        imports = ", ".join(f"{m} {_ms(statistics.median(s['module_import_ms'][m] for s in mine))}" for m in modules)
        nvrtc = sum(1 for s in mine if s["loaded"].get("libnvrtc"))
        rows.append(f"- {PATHS[path]}: imports (median ms) {imports}; libnvrtc mapped in "
                    f"{nvrtc} of {len(mine)} processes")
    return rows


def render(samples: list[dict], environment: dict, config: dict) -> str:
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
    lines += ["", "Where the first launch goes (medians, ms): prepare = `kiln_example.package()` or "
              "`cupy.RawModule(...)`; get kernel = `pkg.kernel/cupy_kernel/cuda_core_kernel(name)` or "
              "`RawModule.get_function(name)` (CuPy's compile or cache read happens here):", ""]
    lines += breakdown_table(samples, kernels)
    lines += ["", *notes(samples, kernels)]
    return "\n".join(lines) + "\n"
