#!/bin/bash
# Builds, here (no GPU needed), what scripts/gpu-check.sh runs on a GPU machine, and copies it into
# one folder that travels there (default .carry/, which git ignores):
#
#   gpu_tests  saxpy  embedded  runtime_load_bench  libkiln.so.0  libkiln_jit.so.0  _native.abi3.so  saxpy.kiln  gpu.kiln  scan.kiln  scan_fixtures.kiln  arch.kiln  linking.kiln
#   arch_split.kiln, arch_split.cc8.kiln, arch_split.cc9.kiln (arch.kiln after kiln split)  parts.kiln (image parts)
#   std_headers.kiln (one kernel with <limits> and <cmath>, through nvcc and through NVRTC with JIT-safe headers)
#   carried.kiln  saxpy_carried.kiln (the example with its sources carried, for run-time compiles)
#                 and saxpy_listed.kiln (the kernel those compile, listed: runtime_load's baseline)
#   python_test.kiln  wheel/kiln_example_wheel-*.whl (the example wheel, every architecture)  BUNDLE.txt
#   split-wheels/{dist,other-version,another-build} (the example split into a main and provider wheels)
#   fidelity_load_packages, and fidelity_packages.tar.gz when $KILN_FIDELITY_WORK names the work folder of
#   a bench/fidelity/run.py run (its packages/ are loaded kernel by kernel on the GPU)
#
# The binaries find libkiln.so.0 beside them (their RPATHs start with $ORIGIN) and are stripped. The
# GPU machine needs only its driver, plus the CUDA toolkit's NVRTC and headers for the benchmark.
#
#   scripts/gpu-bundle.sh [CARRY_DIR]      (build directory: $KILN_GPU_BUILD, default /tmp/build-gpu)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
carry=${1:-$repo/.carry}
build=${KILN_GPU_BUILD:-/tmp/build-gpu}
limit_mib=30

cd "$repo"
cmake --preset default -B "$build" -DKILN_BUILD_TESTS=ON -DKILN_BUILD_EXAMPLES=ON -DKILN_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target gpu_tests saxpy_example embedded_example runtime_load_bench python_test_package \
  fidelity_load_packages all

rm -rf "$carry"
mkdir -p "$carry"
install -m 755 "$build/tests/gpu/gpu_tests" "$build/examples/saxpy/saxpy" "$build/examples/embedded/embedded" \
  "$build/bench/runtime_load/runtime_load_bench" "$build/bench/fidelity/fidelity_load_packages" "$carry/"
if [ -n "${KILN_FIDELITY_WORK:-}" ]; then
  tar -czf "$carry/fidelity_packages.tar.gz" -C "$KILN_FIDELITY_WORK" packages
fi
# The libraries under their SONAMEs, the names the binaries and libkiln ask for: the compile library
# beside the loader, where libkiln looks for it.
install -m 755 "$(readlink -f "$build/lib/libkiln.so")" "$carry/libkiln.so.0"
install -m 755 "$(readlink -f "$build/lib/libkiln_jit.so")" "$carry/libkiln_jit.so.0"
# The Python binding's calls in C, for its GPU tests (the wheel carries its own copy).
install -m 755 "$build/lib/python/_native.abi3.so" "$carry/"
install -m 644 "$build/examples/saxpy/saxpy.kiln" "$build/tests/gpu/gpu.kiln" "$build/tests/gpu/scan.kiln" \
  "$build/tests/gpu/scan_fixtures.kiln" "$build/tests/gpu/arch.kiln" "$build/tests/gpu/linking.kiln" "$build/tests/gpu/carried.kiln" \
  "$build/tests/gpu/arch_split.kiln" "$build/tests/gpu/arch_split.cc8.kiln" "$build/tests/gpu/arch_split.cc9.kiln" \
  "$build/tests/gpu/parts.kiln" "$build/tests/gpu/std_headers.kiln" \
  "$build/bench/runtime_load/saxpy_carried.kiln" "$build/bench/runtime_load/saxpy_listed.kiln" "$build/tests/python/packages/python_test.kiln" "$carry/"

# The example wheel, built as a user builds it (pip wheel against an installed Kiln), for every
# architecture CUDA 13 supports; the GPU machine installs it offline.
python=${KILN_PYTHON:-$repo/.venv/bin/python}
# A fresh prefix: a binding file left from an earlier install would be vendored into the wheel.
rm -rf "$build/bundle-prefix" "$build/bundle-wheel"
cmake --install "$build" --prefix "$build/bundle-prefix" >/dev/null
KILN_PYTHON=$python "$python" -B tests/wheel/build_wheel.py --example examples/python-wheel \
  --prefix "$build/bundle-prefix" --work "$build/bundle-wheel" --dist "$carry/wheel" --architectures all >/dev/null
# The same example split (sm_80, sm_90, PTX): its main wheel, cc8 and cc9 providers, and providers of
# another version, for tests/wheel/check_split_install.py (the GPU loads its family's cubin).
rm -rf "$build/bundle-split" "$carry/split-wheels"
KILN_PYTHON=$python "$python" -B tests/wheel/build_split_wheels.py --example examples/python-wheel \
  --prefix "$build/bundle-prefix" --work "$build/bundle-split" --architectures 80-real,90 >/dev/null
mkdir -p "$carry/split-wheels"
cp -r "$build/bundle-split/dist" "$build/bundle-split/other-version" "$build/bundle-split/another-build" \
  "$carry/split-wheels/"
strip "$carry/gpu_tests" "$carry/saxpy" "$carry/embedded" "$carry/runtime_load_bench" "$carry/fidelity_load_packages"
strip --strip-unneeded "$carry/libkiln.so.0" "$carry/libkiln_jit.so.0" "$carry/_native.abi3.so"

# Every binary must look beside itself first, and find nothing else of Kiln's outside the folder.
for binary in gpu_tests saxpy embedded runtime_load_bench fidelity_load_packages; do
  runpath=$(readelf -d "$carry/$binary" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')
  # shellcheck disable=SC2016  # a literal $ORIGIN
  case "$runpath" in
    '$ORIGIN'*) ;;
    *) echo "gpu-bundle: $binary: RPATH '$runpath' does not start with \$ORIGIN" >&2; exit 1 ;;
  esac
done

{
  echo "Kiln GPU bundle, built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -sm) with $(c++ --version | head -n 1)"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ', with uncommitted changes')"
  (cd "$carry" && find . -type f ! -name BUNDLE.txt -printf '%10s  %P\n' | sort -k2)
} > "$carry/BUNDLE.txt"

size_kib=$(du -sk "$carry" | cut -f1)
if [ "$size_kib" -gt $((limit_mib * 1024)) ]; then
  echo "gpu-bundle: $carry is $((size_kib / 1024)) MiB, over the $limit_mib MiB limit" >&2
  exit 1
fi
echo "gpu-bundle: $carry ($((size_kib / 1024)).$((size_kib % 1024 * 10 / 1024)) MiB) is ready; on the GPU machine run scripts/gpu-check.sh $(realpath --relative-to="$repo" "$carry" 2>/dev/null || echo "$carry")"
