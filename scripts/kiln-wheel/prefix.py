"""Kiln's install prefix inside its pip wheel (kiln-cuda): bin/kiln, lib/ (libkiln, the compile
library, the clang parser and clang's headers in lib/kiln), include/kiln, lib/cmake/Kiln and
share/doc/kiln, as `cmake --install` lays them out. A package so that the wheel's `cmake.root`
entry point (Kiln = kiln._prefix) can name it: scikit-build-core then hands it to CMake as
Kiln_ROOT, and find_package(Kiln) finds it. A plain CMake build asks for it with

    cmake -DKiln_ROOT="$(python -c 'import kiln._prefix as p; print(p.__path__[0])')" ...

scripts/build-kiln-wheel.py copies this file to kiln/_prefix/__init__.py.
"""
