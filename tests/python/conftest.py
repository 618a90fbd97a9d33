"""Fixtures shared by the Python binding's tests.

Environment (tests/python/CMakeLists.txt sets it): KILN_LIBRARY, the libkiln under test;
PYTHONPATH, the binding's parent directory; KILN_PYTHON_TEST_PACKAGES, the directory holding
python_test.kiln (built from fixture/)."""

import os

import pytest


@pytest.fixture(scope="session")
def package_path():
    directory = os.environ.get("KILN_PYTHON_TEST_PACKAGES")
    if not directory:
        pytest.fail("KILN_PYTHON_TEST_PACKAGES is not set: run these tests through ctest, or point it at the "
                    "directory holding python_test.kiln")
    path = os.path.join(directory, "python_test.kiln")
    if not os.path.isfile(path):
        pytest.fail("the test package %s is missing (build the target python_test_package)" % path)
    return path


@pytest.fixture(scope="session")
def package_bytes(package_path):
    with open(package_path, "rb") as file:
        return file.read()


@pytest.fixture
def package(package_path):
    import kiln
    with kiln.open(package_path) as opened:
        yield opened


@pytest.fixture(scope="session")
def runtime_library():
    path = os.environ.get("KILN_LIBRARY")
    if not path or not os.path.isfile(path):
        pytest.fail("KILN_LIBRARY must name the libkiln under test (ctest sets it), not %r" % path)
    return path


@pytest.fixture(scope="session")
def gpu():
    """The driver, with device 0's primary context current (GPU tests only: run_gpu_tests.py has
    checked that there is a GPU)."""
    from gpu_driver import Driver
    return Driver()
