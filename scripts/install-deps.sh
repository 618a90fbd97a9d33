#!/bin/sh
# Installs what Kiln needs beyond a Debian 12 machine with g++, CMake, Ninja, GoogleTest and the CUDA 13
# toolkit at /usr/local/cuda. Idempotent: does nothing when everything is present.
set -eu

packages="libtomlplusplus-dev libzstd-dev libxxhash-dev libcli11-dev nlohmann-json3-dev libfmt-dev
          libgtest-dev ninja-build cmake pkg-config clang-19 libclang-19-dev llvm-19-dev"

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
