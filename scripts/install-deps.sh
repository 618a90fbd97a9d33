#!/bin/sh
# Installs what Kiln needs beyond a Debian 12 machine with g++, CMake, Ninja, GoogleTest and the CUDA 13
# toolkit at /usr/local/cuda. Idempotent: does nothing when everything is present.
# Python tools (scikit-build-core to build wheels, pytest and numpy for the binding's tests, pybind11 for the
# extension-module consumer test) go into .venv at the top of the tree, never into the system Python
# (Debian marks it externally managed).
set -eu

packages="libtomlplusplus-dev libzstd-dev libxxhash-dev libcli11-dev nlohmann-json3-dev libfmt-dev
          libgtest-dev ninja-build cmake pkg-config clang-19 libclang-19-dev llvm-19-dev libclang-rt-19-dev
          python3 python3-venv python3-dev binutils"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

if [ ! -f /usr/local/cuda/include/nvrtc.h ] && [ -z "${CUDA_PATH:-}" ]; then
  echo "install-deps: no CUDA 13 toolkit at /usr/local/cuda; install it or set CUDA_PATH" >&2
  exit 1
fi

# The Python build tools, from PyPI. CMake finds this interpreter for the Python tests and the wheel.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
# pip 23.1 added `pip wheel -C`, the short --config-settings that docs/python.md uses.
python_tools="scikit-build-core>=0.10 pytest>=8 numpy pip>=23.1 pybind11>=2.10"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import scikit_build_core, pytest, numpy, pybind11" 2>/dev/null; then
  echo "install-deps: installing Python tools into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $python_tools
fi
