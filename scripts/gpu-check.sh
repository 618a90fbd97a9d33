#!/bin/bash
# Kiln's checks on a GPU machine, from binaries scripts/gpu-bundle.sh built elsewhere: lists the
# GPUs, runs the examples (saxpy, finding saxpy.kiln beside it by name; embedded, whose package is
# linked in), the GPU tests (as found, and with KILN_FORCE_TARGET=ptx), the Python binding's GPU tests,
# the example wheel installed offline (read-only, empty HOME; its kernels through the binding, CuPy and
# cuda.core with every compiler refused), the runtime load and Python first-launch benchmarks, and,
# when the bundle holds them, every kernel of the fidelity benchmark's packages.
# Run from the repository root (the benchmarks and Python tests read their scripts from it):
#
#   scripts/gpu-check.sh [CARRY_DIR]         (default .carry; logs in ${OUT:-/tmp/kiln-gpu-out})
#
# Environment: KILN_BENCH_RUNS, fresh processes per benchmark case (default 15, runtime_load at least 15; 0 skips the
# benchmarks); KILN_GPU_PYTHON, a Python 3 with CuPy and cuda.core (default python3); CUDA_HOME, the toolkit whose NVRTC and headers the benchmark uses (default: the nvcc on
# PATH, else /usr/local/cuda).
# Exit status: 0 every step passed, 1 a step failed, 125 nothing failed but a step found no GPU.
# Time on an H200: the checks about 40 s, runtime_load about 3 minutes, python_first_launch about 35 s
# per run (nine paths): KILN_BENCH_RUNS=8 fits one 10-minute device call, 15 does not.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
carry=${1:-.carry}
out=${OUT:-/tmp/kiln-gpu-out}
runs=${KILN_BENCH_RUNS:-15}
# runtime_load reports medians and percentiles of at least 15 fresh processes: fewer runs shorten
# the Python benchmark only.
load_runs=$(( runs > 0 && runs < 15 ? 15 : runs ))
mkdir -p "$out"
summary=$out/summary.txt

for file in gpu_tests saxpy embedded runtime_load_bench libkiln.so.0 libkiln_jit.so.0 _native.abi3.so saxpy.kiln gpu.kiln scan.kiln scan_fixtures.kiln \
            arch.kiln arch_split.kiln arch_split.cc8.kiln arch_split.cc9.kiln parts.kiln linking.kiln carried.kiln saxpy_carried.kiln \
            saxpy_listed.kiln python_test.kiln fidelity_load_packages; do
  if [ ! -e "$carry/$file" ]; then
    echo "gpu-check: $carry/$file is missing: build the folder with scripts/gpu-bundle.sh first" >&2
    exit 1
  fi
done
carry=$(cd "$carry" && pwd)
python=${KILN_GPU_PYTHON:-python3}
wheel=$(ls "$carry"/wheel/kiln_example_wheel-*.whl 2>/dev/null | head -n 1)
if [ -z "$wheel" ]; then
  echo "gpu-check: $carry/wheel holds no example wheel: build the folder with scripts/gpu-bundle.sh first" >&2
  exit 1
fi

if [ -z "${CUDA_HOME:-}" ]; then
  if command -v nvcc >/dev/null; then CUDA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  else CUDA_HOME=/usr/local/cuda; fi
fi
# NVRTC for the benchmark; the tests and the example need only the driver.
export LD_LIBRARY_PATH="$CUDA_HOME/lib64:$CUDA_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

failed=0
skipped=0
# step NAME LOG COMMAND...: runs COMMAND, shows its output and keeps it in $out/LOG, and records
# PASS, FAIL or SKIP (exit 125) in the summary.
step() {
  local name=$1 log=$2
  shift 2
  echo "=== $name: $*"
  local start=$SECONDS
  timeout 570 "$@" 2>&1 | tee "$out/$log"
  local rc=${PIPESTATUS[0]} verdict=PASS
  if [ "$rc" -eq 125 ]; then verdict=SKIP; skipped=1
  elif [ "$rc" -ne 0 ]; then verdict=FAIL; failed=1; fi
  printf '%-4s %-24s exit %3d  %4ds  %s\n' "$verdict" "$name" "$rc" $((SECONDS - start)) "$log" | tee -a "$summary"
}

{
  echo "Kiln GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -sm), toolkit $CUDA_HOME"
  cat "$carry/BUNDLE.txt" 2>/dev/null
  echo
  nvidia-smi -L 2>&1
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv 2>&1
  "$python" -c 'import sys, cupy; import cuda.core as c; print("Python", sys.version.split()[0], sys.executable, "CuPy", cupy.__version__, "cuda.core", getattr(c, "__version__", "?"))' 2>&1
  echo
} | tee "$summary"
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "gpu-check: no GPU: nvidia-smi lists none; nothing run" | tee -a "$summary"
  exit 125
fi

step example saxpy.log env KILN_LOG=1 "$carry/saxpy"
step embedded embedded.log env KILN_LOG=1 "$carry/embedded"
step gpu_tests gpu_tests.log env KILN_GPU_TEST_PACKAGES="$carry" "$carry/gpu_tests" '--gtest_filter=-ForcedPtx.*'
# Again with every package file's index read by pages (docs/runtime.md, "Large indexes"), as large
# packages are: the same tests, their records checked at first use.
step gpu_tests_index_pages gpu_tests_index_pages.log env KILN_GPU_TEST_PACKAGES="$carry" KILN_INDEX_PAGES=1 \
  "$carry/gpu_tests" '--gtest_filter=-ForcedPtx.*'
# KILN_FORCE_TARGET is read once per process: the PTX run is a process of its own.
step gpu_tests_forced_ptx gpu_tests_forced_ptx.log env KILN_GPU_TEST_PACKAGES="$carry" KILN_FORCE_TARGET=ptx \
  KILN_LOG=1 "$carry/gpu_tests" '--gtest_filter=ForcedPtx.*:ExampleKernels.*:LoaderImage.*'
# The binding, from the tree, over the bundled libkiln, with its calls in C (the tests launch both ways).
step python_gpu python_gpu.log env KILN_LIBRARY="$carry/libkiln.so.0" KILN_PYTHON_TEST_PACKAGES="$carry" \
  KILN_PYTHON_NATIVE="$carry/_native.abi3.so" \
  PYTHONPATH=runtime/python PYTHONDONTWRITEBYTECODE=1 "$python" tests/python/run_gpu_tests.py -p no:cacheprovider -q -rs
# The wheel as a user installs it: offline into a fresh venv, read-only, empty HOME (tests/wheel).
# Work folders outside $out: only logs and reports come back from the GPU machine.
work=$(mktemp -d)
step wheel_offline wheel_offline.log "$python" -B tests/wheel/check_offline.py --wheel "$wheel" --work "$work/wheel-offline"
# The split example: the main wheel with and without its providers; with the device's provider the
# GPU must load that family's cubin (tests/wheel/check_split_install.py).
step wheel_split wheel_split.log "$python" -B tests/wheel/check_split_install.py --wheels "$carry/split-wheels" \
  --work "$work/wheel-split"
# The same wheel beside CuPy and cuda.core (pip --target: the interpreter's own venv stays as it is),
# read-only, run with every compiler refused and no toolkit on the paths.
site=$work/wheel-site
step wheel_site wheel_site.log "$python" -m pip install --quiet --no-index --no-deps --target "$site" "$wheel"
[ -d "$site" ] && chmod -R a-w "$site"
interop_home=$(mktemp -d)
step wheel_interop wheel_interop.log env HOME="$interop_home" PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 \
  "$python" scripts/run-without-compilers.py kiln_example
echo "HOME after the wheel's run (the driver and CuPy make empty cache directories): $(cd "$interop_home" && find . -mindepth 1 | tr '\n' ' ')" \
  | tee -a "$out/wheel_interop.log"
if [ -n "$(find "$interop_home" -type f)" ]; then
  echo "FAIL wheel_interop: files written to HOME: $(find "$interop_home" -type f)" | tee -a "$summary"; failed=1
fi
if [ -f "$carry/fidelity_packages.tar.gz" ]; then
  tar -xzf "$carry/fidelity_packages.tar.gz" -C "$work"
  step fidelity_load fidelity_load.log "$carry/fidelity_load_packages" "$work"/packages/*.kiln
fi
if [ "$runs" -gt 0 ]; then
  # runtime_load first: on an H200 it takes about 3 minutes, python_first_launch about 30 s per run
  # (7.5 minutes at 15), so a device call cut short by its time limit loses the Python figures, not both.
  step runtime_load runtime_load.log env PYTHONUNBUFFERED=1 python3 bench/runtime_load/run.py \
    --bench "$carry/runtime_load_bench" --package "$carry/saxpy.kiln" --carried "$carry/saxpy_carried.kiln" --listed "$carry/saxpy_listed.kiln" --runs "$load_runs" \
    --sources examples/saxpy/kernels --cuda-include "$CUDA_HOME/include" \
    --out "$out/runtime_load.md" --raw "$out/runtime_load.jsonl"
  # The example wheel vendors the loader alone; kiln.compile_program's path (6) takes the bundle's
  # compile library, by the variable libkiln reads.
  step python_first_launch python_first_launch.log env PYTHONPATH="$site" PYTHONUNBUFFERED=1 \
    KILN_JIT_LIBRARY="$carry/libkiln_jit.so.0" "$python" \
    bench/python_first_launch/run.py --runs "$runs" --out "$out/python-first-launch.md"
else
  echo "gpu-check: KILN_BENCH_RUNS=0: the benchmark is not run" | tee -a "$summary"
fi

echo "=== summary ($out)"
cat "$summary"
if [ "$failed" -ne 0 ]; then exit 1; fi
if [ "$skipped" -ne 0 ]; then exit 125; fi
exit 0
